// Package endtoend holds sqljudge's golden end-to-end tests, after sqlc's
// internal/endtoend: each folder testdata/<case>/ holds a command script
// (cmd), the inputs that are not shared benchmark data, and the expected
// outputs: stdout (the console output and exit code of every command),
// stderr (its messages: warnings, errors with file:line) and out/ (every
// JSON and JSONL file the commands write under $OUT: results.jsonl,
// summary.json, fingerprint.json, agreement.json, suite.json). The test
// runs the script in-process through cli.Main and compares every output
// byte for byte, after replacing absolute paths by their variable names
// and wall times by 0. Refresh the expected files with
//
//	go test ./internal/endtoend -update
//
// and read the diff before committing it.
//
// The cmd script has one step per line ("#" starts a comment, a trailing
// "\" continues a line). Paths may use $DATA (the shared benchmark data,
// ../shared/data), $CASE (the case folder), $WORK (a scratch folder) and
// $OUT (the compared output folder); $LLM is the base URL of a scripted
// OpenAI-compatible server (internal/llm/llmtest) started for the case.
// Steps:
//
//	sqljudge ARGS...           run the command; stdout, stderr and the exit code are recorded
//	head N SRC DST             the first N lines of $DATA/SRC into $WORK/DST
//	jsonhead N SRC DST         the first N elements of the JSON array $DATA/SRC
//	csvhead N SRC DST          the header and the first N records of the CSV $DATA/SRC
//	labels N SYSTEM DST        JSONL {"id", "label"} of the official Spider verdicts
//	                           (execution match) of the first N items of SYSTEM
//	llm SYSTEM                 start the scripted judge model and set $LLM: it knows
//	                           those verdicts of SYSTEM by question (see startLLM)
//
// Shared data is read in place and cut in the scratch folder, never copied
// into the repository.
package endtoend
