package blocks_test

// The memory block's signatures, as better-supabase's module declares them
// (contract notation), and who besides the service role may call what.
func init() {
	for name, sig := range map[string]struct{ args, result string }{
		"better_supabase.memory_view":               {"tenant uuid, path text = '/memories', ns jsonb = '{}'", "jsonb"},
		"better_supabase.memory_create":             {"tenant uuid, path text, content text, ns jsonb = '{}', expected_version integer = null", "jsonb"},
		"better_supabase.memory_str_replace":        {"tenant uuid, path text, old_text text, new_text text, ns jsonb = '{}'", "jsonb"},
		"better_supabase.memory_insert":             {"tenant uuid, path text, insert_line integer, insert_text text, ns jsonb = '{}'", "jsonb"},
		"better_supabase.memory_delete":             {"tenant uuid, path text, ns jsonb = '{}'", "integer"},
		"better_supabase.memory_rename":             {"tenant uuid, old_path text, new_path text, ns jsonb = '{}'", "integer"},
		"better_supabase.memory_list":               {"tenant uuid, ns jsonb = '{}', kind text = 'core', max_rows integer = 200", "jsonb"},
		"better_supabase.memory_save":               {"tenant uuid, content text, ns jsonb = '{}', embedding extensions.vector = null, model text = null, source_message_id text = null", "jsonb"},
		"better_supabase.memory_search":             {"tenant uuid, query_embedding extensions.vector = null, query_text text = null, ns jsonb = '{}', k integer = 8", "jsonb"},
		"better_supabase.memory_forget":             {"memory_id uuid, superseded_by uuid = null", "boolean"},
		"better_supabase.set_memory_embedding":      {"memory_id uuid, embedding extensions.vector, model text = null, content_hash text = null", "boolean"},
		"better_supabase.set_memory_embeddings":     {"items jsonb, model text = null", "integer"},
		"better_supabase.pending_memory_embeddings": {"batch integer = 64", "jsonb"},
		"better_supabase.set_ai_message_embedding":  {"chat_id uuid, message_id text, user_id uuid, tenant uuid, embedding extensions.vector, model text = null", "boolean"},
		"better_supabase.recall_ai_messages":        {"tenant uuid, query_embedding extensions.vector, k integer = 5, exclude_chat uuid = null, owner uuid = null", "jsonb"},
		"better_supabase.memory_document_read":      {"scope_key text, path text", "jsonb"},
		"better_supabase.memory_document_write":     {"scope_key text, path text, content text, expected_version text = null, expires_in integer = null", "jsonb"},
		"better_supabase.purge_memory_documents":    {"batch integer = 1000", "integer"},
	} {
		if _, dup := wantSignatures[name]; dup {
			panic("signature listed twice: " + name)
		}
		wantSignatures[name] = sig
	}
	// Signed-in users use the memory tool's commands, archival memory and
	// recall on what the functions allow them; embedding workers and the
	// agent runtimes' documents stay the service role's.
	mayExecute["authenticated"] = append(mayExecute["authenticated"],
		"memory_view", "memory_create", "memory_str_replace", "memory_insert", "memory_delete", "memory_rename",
		"memory_list", "memory_save", "memory_search", "memory_forget", "recall_ai_messages")
}
