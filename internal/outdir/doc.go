// Package outdir is sqljudge's output-folder protocol, the one every
// command that writes a folder of results follows (eval's runner, equiv,
// generate's ledger, shard merge, audit; the LLM reply store and the
// retrieval index cache use its atomic writes):
//
//   - Lock: one run at a time per folder, an flock(2) on
//     OUT/.sqljudge.lock taken without waiting (ErrLocked otherwise),
//     released by the kernel if the process dies.
//   - WriteFile: a whole file replaced atomically (written to path.tmp,
//     renamed over path), so a crash leaves the old file or the new one;
//     WriteShared does the same with a unique temporary name, for folders
//     written without the lock (content-addressed caches shared by runs).
//   - Fingerprint: OUT/fingerprint.json names the inputs and settings the
//     records depend on; a resumed run compares its own with it
//     (Fingerprint.Diff names each changed setting) and is refused with
//     ErrSettingsChanged when they differ.
//   - Journal: OUT/<records>.jsonl, one JSON object a line appended in
//     input order as items complete (an item that finishes early waits for
//     the earlier ones), flushed to the file after each batch (no fsync: a
//     crash of the machine may lose the last lines, never order them
//     wrongly); ReadJournal reads back the complete lines of an earlier
//     run and drops a last line cut short (no newline), which OpenJournal
//     truncates away before appending. WriteJSONL rewrites a journal in
//     the order given, atomically.
//   - ErrOutputExists: a folder holding an earlier run is neither appended
//     to nor replaced unless the user says --resume or --overwrite.
//
// The protocol follows what eval's runner has done since resumable runs
// (docs/output.md): the lock is github.com/gofrs/flock, the journal is
// JSON Lines (jsonlines.org), one record and its newline a write.
package outdir
