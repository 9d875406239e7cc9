package blocks_test

// The knowledge block's signatures, as better-supabase's module declares
// them (contract notation), and who besides the service role may call what.
func init() {
	for name, sig := range map[string]struct{ args, result string }{
		"better_supabase.create_knowledge_document":   {"tenant uuid, title text, scope text = 'user', scope_id uuid = null, file_id uuid = null, source text = null, metadata jsonb = '{}', owner uuid = null", "jsonb"},
		"better_supabase.get_knowledge_document":      {"document_id uuid", "jsonb"},
		"better_supabase.list_knowledge_documents":    {"tenant uuid, scope text = null, scope_id uuid = null, max_rows integer = 100", "jsonb"},
		"better_supabase.delete_knowledge_document":   {"document_id uuid", "boolean"},
		"better_supabase.write_knowledge_chunks":      {"document_id uuid, chunks jsonb, model text = null", "jsonb"},
		"better_supabase.pending_knowledge_chunks":    {"document_id uuid, batch integer = 64", "jsonb"},
		"better_supabase.set_knowledge_embeddings":    {"document_id uuid, embeddings jsonb, model text = null", "integer"},
		"better_supabase.fail_knowledge_document":     {"document_id uuid, error text", "boolean"},
		"better_supabase.pending_knowledge_documents": {"batch integer = 10", "jsonb"},
		"better_supabase.reembed_knowledge":           {"tenant uuid = null, model text = null", "integer"},
		"better_supabase.knowledge_search":            {"tenant uuid, query_embedding extensions.vector = null, query_text text = null, scopes jsonb = null, k integer = 8, filter jsonb = null", "jsonb"},
	} {
		if _, dup := wantSignatures[name]; dup {
			panic("signature listed twice: " + name)
		}
		wantSignatures[name] = sig
	}
	// Signed-in users create, read, search, rewrite and delete what the
	// functions allow them; the embed worker's functions stay the service
	// role's.
	mayExecute["authenticated"] = append(mayExecute["authenticated"],
		"create_knowledge_document", "get_knowledge_document", "list_knowledge_documents", "delete_knowledge_document",
		"write_knowledge_chunks", "knowledge_search")
}
