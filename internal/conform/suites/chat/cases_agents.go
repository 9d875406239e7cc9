package chat

import (
	"errors"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The cases of who reads which chat, and of what coding agents keep per
// chat: sandboxes, harness sessions and share links.

// needCallers is the store's tenants and callers; a store without them
// skips the case, which needs them for what.
func needCallers(t *conform.T, s Store, what string) Callers {
	cc, ok := s.(Callers)
	if !ok {
		t.Skip("the chat store does not take the caller's identity, so %s cannot be checked", what)
	}
	return cc
}

// grant gives user permission in tenant; a store that cannot grant skips
// the case.
func grant(t *conform.T, cc Callers, user, tenant, permission string) {
	err := cc.Grant(t.Context(), user, tenant, permission)
	if errors.Is(err, conform.ErrNoGrants) {
		t.Skip("%v", err)
	}
	t.Must("grant "+permission, err)
}

func tenantMembersReadSharedChats(t *conform.T, s Store) {
	cc := needCallers(t, s, "chat visibility")
	owner, tenant, member, outsider := t.UUID(), t.UUID(), t.UUID(), t.UUID()
	chats := map[string]string{}
	for _, kind := range []string{"shared", "private"} {
		chat, err := cc.NewTenantChat(t.Context(), owner, tenant, kind == "shared")
		t.Must("new "+kind+" chat", err)
		_, err = s.AppendUser(t.Context(), chat, userMsg(t.ID("u"), "a question"), UserOptions{})
		t.Must("append user to the "+kind+" chat", err)
		chats[kind] = chat
	}
	for _, g := range []struct{ user, tenant string }{{member, tenant}, {outsider, t.UUID()}} {
		grant(t, cc, g.user, g.tenant, "ai_chat.read")
	}
	for _, who := range []struct {
		name          string
		c             conform.Caller
		shared, other bool
	}{
		{"the owner", conform.User(owner), true, true},
		{"a member holding ai_chat.read", conform.User(member), true, false},
		{"a member of another tenant", conform.User(outsider), false, false},
		{"anon", conform.Anon, false, false},
	} {
		for kind, want := range map[string]bool{"shared": who.shared, "private": who.other} {
			p, err := cc.PathAs(t.Context(), who.c, chats[kind])
			var se *conform.StoreError
			switch {
			case err == nil:
			case conform.Refused(err), errors.As(err, &se) && se.SQLState == "P0002":
				p = nil
			default:
				t.Must("path of the "+kind+" chat as "+who.name, err)
			}
			t.Eq("the "+kind+" chat's messages as "+who.name, len(p), map[bool]int{true: 1, false: 0}[want])
		}
	}
}

// needAgents is what the store keeps for coding agents; a store that
// keeps none of it skips the case.
func needAgents(t *conform.T, s Store) Agents {
	a, ok := s.(Agents)
	if !ok {
		t.Skip("the chat store keeps no sandboxes, harness sessions or share links")
	}
	return a
}

func sandboxFoundAgainForItsChat(t *conform.T, s Store) {
	a := needAgents(t, s)
	chat, other := newChat(t, s), newChat(t, s)
	box := t.ID("sbx")
	t.Must("register the sandbox", a.RegisterSandbox(t.Context(), t.UUID(), "e2b", box, chat))
	for _, q := range []struct{ name, chat, provider, want string }{
		{"its chat and provider", chat, "e2b", box},
		{"another provider", chat, "daytona", ""},
		{"another chat", other, "e2b", ""},
	} {
		got, err := a.SandboxFor(t.Context(), q.chat, q.provider)
		t.Must("find the sandbox for "+q.name, err)
		t.Eq("sandbox for "+q.name, got, q.want)
	}
}

func harnessLockExcludesAndExpires(t *conform.T, s Store) {
	a := needAgents(t, s)
	chat := newChat(t, s)
	const harness = "claude-code"
	first, second := t.ID("turn"), t.ID("turn")
	// call is one call of the lock and what it must answer.
	type call struct {
		what string
		f    func() (bool, error)
		want bool
	}
	calls := func(cs ...call) {
		for _, c := range cs {
			got, err := c.f()
			t.Must(c.what, err)
			t.Eq(c.what, got, c.want)
		}
	}
	lock := func(holder string) func() (bool, error) {
		return func() (bool, error) { return a.LockHarness(t.Context(), chat, harness, holder, time.Minute) }
	}
	unlock := func(holder string) func() (bool, error) {
		return func() (bool, error) { return a.UnlockHarness(t.Context(), chat, harness, holder) }
	}
	calls(
		call{"the first turn locks", lock(first), true},
		call{"a second turn while it holds the lock", lock(second), false},
		call{"the first turn renews", lock(first), true},
		call{"the second turn unlocks a lock it does not hold", unlock(second), false},
	)
	t.Must("let the lock expire", a.AgeHarnessSession(t.Context(), chat, harness, 2*time.Minute))
	calls(
		call{"the second turn after the lock expired", lock(second), true},
		call{"the first turn, now that the second holds it", lock(first), false},
		call{"the holder unlocks", unlock(second), true},
		call{"the first turn after the unlock", lock(first), true},
	)
}

func revokedShareExposesNothing(t *conform.T, s Store) {
	a := needAgents(t, s)
	cc := needCallers(t, s, "sharing")
	owner, tenant := t.UUID(), t.UUID()
	chat, err := cc.NewTenantChat(t.Context(), owner, tenant, false)
	t.Must("new chat", err)
	grant(t, cc, owner, tenant, "ai_chat.share")
	u1, a1 := userMsg(t.ID("u"), "q1"), assistantMsg(t.ID("a"), "a1")
	appendUser(t, s, chat, u1)
	saveAnswer(t, s, chat, a1, u1.ID)
	id, token, err := a.Share(t.Context(), owner, chat)
	t.Must("share", err)
	ids := func(p []PathEntry) []string {
		out := []string{}
		for _, e := range p {
			out = append(out, e.ID)
		}
		return out
	}
	shown, err := a.Shared(t.Context(), token)
	t.Must("read the link", err)
	t.Eq("the link's messages", ids(shown), []string{u1.ID, a1.ID})
	revoked, err := a.RevokeShare(t.Context(), owner, id)
	t.Must("revoke", err)
	t.Eq("revoke", revoked, true)
	shown, err = a.Shared(t.Context(), token)
	t.Must("read the revoked link", err)
	t.Eq("the revoked link's messages", ids(shown), []string{})
}
