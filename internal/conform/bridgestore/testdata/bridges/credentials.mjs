// An in-memory CredentialProvider behind the bridge protocol, in plain
// Node.js with no dependencies. Secrets sit in a vault map, the provider's
// own rows hold only refs. Correct by default; each --bug flag breaks one
// rule, so that the credentials suite can be shown to catch it:
//   --bug=stale-cache          getToken keeps answering the first value it read
//   --bug=ignore-tenant        a ref's tenant is ignored
//   --bug=revoke-all-users     revoking one user's credential revokes every user's
//   --bug=verify-ignores-body  verifyInbound accepts any signature header
//   --bug=token-in-rows        the provider's rows keep the token
//   --no-inbound               offer no inbound scheme
import { createHmac, timingSafeEqual } from "node:crypto";
import { serve, args, bug, ResultError } from "./serve.mjs";


const vault = new Map();
const cache = new Map();
const rows = [];

// vaultName is where a ref's credential for a subject lives.
function vaultName(ref, subject) {
  if (ref?.provider !== "nodevault") throw new ResultError("invalid_input", `not a nodevault ref: provider ${JSON.stringify(ref?.provider)}`);
  if (typeof ref.name !== "string" || ref.name === "") throw new ResultError("invalid_input", "the ref has no name");
  const ns = typeof ref.tenant === "string" && bug !== "ignore-tenant" ? `${ref.tenant}:` : "";
  const base = `bs:cred:nodevault:${ns}${ref.name}`;
  if (ref.perUser) {
    if (subject?.type !== "user" || !subject.id) throw new ResultError("invalid_input", "a per-user ref needs a user subject");
    return `${base}:user:${subject.id}`;
  }
  return base;
}

const sign = (body, secret) => createHmac("sha256", secret).update(body).digest("hex");

const credentials = {
  identity: () => ({ apiVersion: 1, name: "nodevault" }),
  fixture: () => ({
    ref: { provider: "nodevault", name: "api" },
    userRef: { provider: "nodevault", name: "oauth", perUser: true },
    ...(args["no-inbound"] ? {} : { inboundRef: { provider: "nodevault", name: "webhook", inbound: "hmac-sha256" } }),
  }),
  seed({ ref, subject, value }) {
    vault.set(vaultName(ref, subject), value);
    rows.push({ credential_ref: ref, subject, ...(bug === "token-in-rows" ? { token: value } : {}) });
  },
  getToken({ ref, subject }) {
    const name = vaultName(ref, subject);
    let token = vault.get(name);
    if (token === undefined) throw new ResultError("not_found", `no credential ${name}`);
    if (bug === "stale-cache" && cache.has(name)) token = cache.get(name);
    cache.set(name, token);
    return { token, headers: { authorization: `Bearer ${token}` } };
  },
  capabilities: ({ ref }) => ({ userSubjects: ref?.perUser === true }),
  revoke({ ref, subject }) {
    const name = vaultName(ref, subject);
    const revoked = vault.delete(name);
    cache.delete(name);
    if (bug === "revoke-all-users" && ref.perUser) {
      const prefix = name.slice(0, name.lastIndexOf(":user:") + 6);
      for (const k of [...vault.keys()]) if (k.startsWith(prefix)) vault.delete(k);
    }
    return { revoked };
  },
  sign: ({ body, secret }) => ({ headers: { "x-signature": sign(body, secret) } }),
  verifyInbound({ ref, body, headers }) {
    const secret = vault.get(vaultName(ref, { type: "app" }));
    if (secret === undefined) throw new ResultError("not_found", "no inbound secret");
    const got = Buffer.from(headers?.["x-signature"] ?? "", "hex");
    if (bug === "verify-ignores-body") return { valid: got.length > 0 };
    const want = Buffer.from(sign(body, secret), "hex");
    return { valid: got.length === want.length && timingSafeEqual(got, want) };
  },
  atRest: () => ({ options: { provider: "nodevault" }, rows }),
};

serve({
  label: "credentials",
  name: "nodevault",
  capabilities: { credentials: true },
  groups: { credentials },
});
