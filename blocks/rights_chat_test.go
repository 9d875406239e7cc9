package blocks_test

// The ai-chat block's signatures, as better-supabase's module declares them
// (contract notation), and who besides the service role may call what.
func init() {
	for name, sig := range map[string]struct{ args, result string }{
		"better_supabase.ai_chat_can_read":               {"chat uuid", "boolean"},
		"better_supabase.create_ai_chat":                 {"tenant uuid, fields jsonb = '{}'", "jsonb"},
		"better_supabase.update_ai_chat":                 {"chat uuid, fields jsonb", "jsonb"},
		"better_supabase.delete_ai_chat":                 {"chat uuid", "boolean"},
		"better_supabase.get_ai_chat":                    {"chat uuid", "jsonb"},
		"better_supabase.list_ai_chats":                  {"tenant uuid = null, search text = null, project uuid = null, pinned boolean = null, archived boolean = false, after text = null, size integer = 50", "jsonb"},
		"better_supabase.purge_ai_chats":                 {"batch integer = 1000", "integer"},
		"better_supabase.save_ai_project":                {"id uuid, tenant uuid, fields jsonb", "jsonb"},
		"better_supabase.delete_ai_project":              {"id uuid", "boolean"},
		"better_supabase.list_ai_projects":               {"tenant uuid", "jsonb"},
		"better_supabase.ai_message_path_of":             {"chat uuid, leaf text, include_native boolean", "jsonb"},
		"better_supabase.ai_message_siblings":            {"chat uuid, message_id text", "jsonb"},
		"better_supabase.switch_ai_branch":               {"chat uuid, message_id text", "jsonb"},
		"better_supabase.attach_ai_run":                  {"run uuid, external_run_id text", "boolean"},
		"better_supabase.get_ai_run":                     {"run uuid", "jsonb"},
		"better_supabase.list_ai_runs":                   {"chat uuid = null, active boolean = null, size integer = 50", "jsonb"},
		"better_supabase.record_ai_run_step":             {"run uuid, step jsonb", "jsonb"},
		"better_supabase.list_ai_run_steps":              {"run uuid", "jsonb"},
		"better_supabase.set_ai_run_cost":                {"generation_id text, cost_micro_usd bigint, usage jsonb = null", "boolean"},
		"better_supabase.record_ai_tool_approval":        {"chat uuid, approval jsonb", "jsonb"},
		"better_supabase.decide_ai_tool_approval":        {"approval_id text, approved boolean, reason text = null", "jsonb"},
		"better_supabase.get_ai_tool_approvals":          {"chat uuid, ids text[] = null", "jsonb"},
		"better_supabase.list_pending_ai_tool_approvals": {"size integer = 50", "jsonb"},
		"better_supabase.set_ai_tool_policy":             {"tenant uuid, tool text, policy text", "jsonb"},
		"better_supabase.ai_tool_policies_for":           {"tenant uuid", "jsonb"},
		"better_supabase.open_ai_pending_input":          {"chat uuid, input jsonb", "jsonb"},
		"better_supabase.answer_ai_pending_input":        {"id uuid, answer jsonb", "jsonb"},
		"better_supabase.rate_ai_message":                {"chat uuid, message_id text, rating integer, reason text = null, comment text = null", "jsonb"},
		"better_supabase.share_ai_chat":                  {"chat uuid, leaf text = null", "jsonb"},
		"better_supabase.revoke_ai_chat_share":           {"id uuid", "boolean"},
		"better_supabase.list_ai_chat_shares":            {"chat uuid", "jsonb"},
		"better_supabase.get_shared_ai_chat":             {"token text", "jsonb"},
		"better_supabase.upsert_ai_models":               {"models jsonb, prune boolean = false", "integer"},
		"better_supabase.allowed_ai_models":              {"tenant uuid = null", "jsonb"},
		"better_supabase.record_ai_moderation_event":     {"event jsonb", "jsonb"},
		"better_supabase.list_ai_moderation_events":      {"tenant uuid, size integer = 100", "jsonb"},
		"better_supabase.register_ai_sandbox":            {"tenant uuid, provider text, sandbox_id text, fields jsonb = '{}'", "jsonb"},
		"better_supabase.touch_ai_sandbox":               {"id uuid", "boolean"},
		"better_supabase.ai_sandbox_for":                 {"chat_id uuid, provider text", "jsonb"},
		"better_supabase.list_ai_sandboxes":              {"tenant uuid, chat_id uuid = null", "jsonb"},
		"better_supabase.idle_ai_sandboxes":              {"batch integer = 50, lease_seconds integer = 300", "jsonb"},
		"better_supabase.finish_ai_sandbox_stop":         {"id uuid, stopped boolean, error text = null", "boolean"},
		"better_supabase.load_ai_harness_session":        {"chat uuid, harness text", "jsonb"},
		"better_supabase.save_ai_harness_session":        {"chat uuid, harness text, fields jsonb, holder text = null", "jsonb"},
		"better_supabase.lock_ai_harness_session":        {"chat uuid, harness text, holder text, ttl_seconds integer = 300", "boolean"},
		"better_supabase.unlock_ai_harness_session":      {"chat uuid, harness text, holder text", "boolean"},
	} {
		if _, dup := wantSignatures[name]; dup {
			panic("signature listed twice: " + name)
		}
		wantSignatures[name] = sig
	}
	// A share link is read by whoever holds its token.
	mayExecute["anon"] = append(mayExecute["anon"], "get_shared_ai_chat")
	// Signed-in users reach what the functions check themselves; the
	// server's own functions (saving answers, claims, runs' records,
	// sandboxes, harness sessions, the model catalog, moderation records)
	// stay the service role's.
	mayExecute["authenticated"] = append(mayExecute["authenticated"],
		"ai_chat_can_read", "create_ai_chat", "update_ai_chat", "delete_ai_chat", "get_ai_chat", "list_ai_chats",
		"save_ai_project", "delete_ai_project", "list_ai_projects", "ai_message_siblings", "switch_ai_branch",
		"get_ai_run", "list_ai_runs", "list_ai_run_steps", "decide_ai_tool_approval", "get_ai_tool_approvals",
		"list_pending_ai_tool_approvals", "set_ai_tool_policy", "ai_tool_policies_for", "answer_ai_pending_input",
		"rate_ai_message", "share_ai_chat", "revoke_ai_chat_share", "list_ai_chat_shares", "get_shared_ai_chat",
		"allowed_ai_models", "list_ai_moderation_events", "list_ai_sandboxes")
}
