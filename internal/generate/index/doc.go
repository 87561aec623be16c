// Package index is the preprocessing and retrieval library of the CHESS
// text-to-SQL pipeline (Talaei et al. 2024, "CHESS: Contextual Harnessing
// for Efficient SQL Synthesis"; official code ShayanTalaei/CHESS): the
// per-database index of distinct text values searched by MinHash LSH, the
// column descriptions with their embeddings, and the Information
// Retriever's two retrieval tools built on them.
//
// What follows the official code, parameter for parameter:
//
//   - Values (src/database_utils/db_values/preprocess.py,
//     _get_unique_values): every table but sqlite_sequence; columns of
//     text type whose name is not the name of a primary-key column of any
//     table (case-insensitive); not those whose lower-cased name contains
//     "_id", " id", "url", "email", "web", "time", "phone", "date" or
//     "address", nor those ending in "Id"; of the rest, the DISTINCT
//     non-NULL values of a column are indexed when ("name" is in its
//     lower-cased name and the values' lengths sum to under 5,000,000) or
//     (they sum to under 2,000,000 and average under 25 characters) or there
//     are fewer than 100 of them.
//   - MinHash LSH (make_lsh, _create_minhash, run/run_preprocess.sh):
//     signature size 100, character 3-grams of the value as stored (case
//     kept; a value shorter than 3 characters has no 3-gram and the empty
//     signature), LSH threshold 0.01, which datasketch's optimal banding
//     (equal false-positive and false-negative weights) turns into 100 bands
//     of 1 row: a value is a candidate when any one of its 100 minimum
//     hashes equals the keyword's. Candidates are ranked by the estimated
//     Jaccard similarity (the share of equal minimum hashes) and the top 10
//     kept (db_values/search.py query_lsh, top_n=10).
//   - Entity retrieval (workflow/agents/information_retriever/tool_kit/
//     retrieve_entity.py): see Index.RetrieveEntities.
//   - Context retrieval (retrieve_context.py, db_catalog/): see
//     Index.RetrieveContext and LoadDescriptions.
//
// Checked against the official code (testdata/oracle/ runs it): by
// default the indexed columns and values of the 20 Spider dev databases
// are those of _get_unique_values (91 columns, 24,421 values), and RetrieveEntities returns
// what RetrieveEntity returns on 80 calls given the same LSH candidates and
// embeddings.
//
// Where it deliberately differs, and why:
//
//   - Text columns (Options.TextAffinity, off by default): CHESS keeps a
//     column when its declared type contains "TEXT" (case-sensitive),
//     written for BIRD, whose text columns are all declared TEXT. Spider
//     declares most of them CHAR(n), VARCHAR(n) or lower-case text, which
//     that rule drops (174 columns and 31,844 values with the option, 91
//     and 24,421 without, on the 20 Spider dev databases). The option
//     indexes every column of SQLite's TEXT affinity (CHAR, CLOB or TEXT,
//     any case), the same set on BIRD.
//   - Hash functions: datasketch draws its 100 permutations from numpy's
//     RandomState(1) over SHA-1; we use double hashing of two seeded 64-bit
//     FNV-1a hashes (github.com/dgryski/go-minhash, as
//     github.com/ekzhu/minhash-lsh builds its signatures), seeded by
//     Options.Seed. Signatures differ value for value but have the same
//     distribution, so candidate sets agree in expectation, not bit for bit.
//     Minimum hashes are kept to 32 bits, as datasketch keeps them.
//   - The LSH is a thin banded index of our own (sorted arrays of band
//     keys, binary search), with the banding that
//     github.com/ekzhu/minhash-lsh's optimiser gives for (100, 0.01): 100
//     bands of 1 row, datasketch's too (checked in the tests). It returns
//     the candidates datasketch's MinHashLSH returns. That library's own
//     index (an LSH Forest with string keys, which cannot be saved) took
//     11.6 s to build Spider dev's 32,000 values and 3 s to reopen them;
//     ours takes 0.76 s and 0.56 s (same machine, same load).
//   - Values are read as CAST(value AS TEXT) (SQLite's rendering of a
//     number, "1.0" for a REAL 1, where CHESS applies Python's str), and
//     each column's values are sorted, so that the index is the same bytes
//     whatever order SQLite returns them in.
//   - Column-name matching: CHESS embeds every column name and the
//     question with its hint, scores the matches, then returns
//     list(set(...)) of them, which discards the scores' order. We return
//     the same set in schema order and make no embedding request for it.
//   - A value retrieved through several substrings of a keyword is listed
//     once (CHESS lists it once per substring).
//   - Two extensions, off by default (Options.FoldCase, Options.ShortScan),
//     recover values that 3-gram LSH cannot see through a misspelling:
//     values of 5 characters or fewer, and values whose case differs from
//     the question's.
//   - Embeddings: CHESS sends each embed_documents list with its repeats
//     and one request per context query; we send distinct texts, and one
//     request for all the queries of a retrieve_context call. Context
//     retrieval ranks all description texts exactly (cosine), where Chroma
//     searches an approximate HNSW index by L2 distance (the same order on
//     unit-length embeddings).
//   - Spider has no database_description folder. CHESS then builds an
//     empty vector database and retrieve_context returns nothing; so do we
//     (an empty Context, no embedding request).
package index
