// tinychat, a made-up SDK message: {id, who: "me" | "bot", say}.
const ROLES: Record<string, string> = { me: "user", bot: "assistant" };

export function fromSdk(n: any) {
  const role = ROLES[n.who];
  if (role === undefined) throw new Error(`unknown tinychat sender ${JSON.stringify(n.who)}`);
  return { id: n.id, role, parts: [{ type: "text", text: n.say }] };
}

export function toSdk(m: any) {
  const who = Object.keys(ROLES).find((k) => ROLES[k] === m.role);
  return { id: m.id, who, say: m.parts.map((p: any) => p.text).join("") };
}
