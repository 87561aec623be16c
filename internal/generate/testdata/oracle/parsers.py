"""Oracle: the official CHESS parsers on testdata/parser_cases.json.

Runs the parsers of ShayanTalaei/CHESS (src/llm/parsers.py, get_parser)
unmodified on every reply of testdata/parser_cases.json and writes, per
case, what the official pipeline gets:

  {"outcome": "ok", "value": ...}   the parsed value (JSON; Python tuples
                                    become lists, "type" names the
                                    Python type)
  {"outcome": "retry", "error": ...} an OutputParserException: the
                                    official call_llm_chain asks again
  {"outcome": "fail", "error": ...} any other exception, or None from
                                    JsonOutputParser (a mismatched bracket):
                                    the step fails without a retry (the
                                    tool reads None and raises)

Parser names: keywords = python_list_output_parser, unit_tests =
generate_unit_tests, evaluate = evaluate, json = filter_column (the
JsonOutputParser of filter_column, select_tables and select_columns),
candidate = generate_candidate_gemini_markdown_cot, revise = revise_new.

langchain is not installed: the oracle needs a langchain_core stand-in on
PYTHONPATH whose utils/json.py is langchain's own (langchain-ai/langchain,
libs/core/langchain_core/utils/json.py: parse_json_markdown,
parse_partial_json) and whose JsonOutputParser.parse is its parse_result
(strip the text, parse_json_markdown, JSONDecodeError ->
OutputParserException); BaseOutputParser, pydantic_v1 and
OutputParserException are empty stand-ins. To re-run:

    git --git-dir=<mirror of ShayanTalaei/CHESS> archive HEAD src | tar -x -C /tmp/chess_src
    PYTHONPATH=/tmp/lc:/tmp/chess_src/src /usr/bin/python3 internal/generate/testdata/oracle/parsers.py \
        internal/generate/testdata/parser_cases.json > internal/generate/testdata/parser_expected.json
"""
import json
import sys

from langchain_core.exceptions import OutputParserException
from llm.parsers import get_parser

NAMES = {
    "keywords": "python_list_output_parser",
    "unit_tests": "generate_unit_tests",
    "evaluate": "evaluate",
    "json": "filter_column",
    "candidate": "generate_candidate_gemini_markdown_cot",
    "revise": "revise_new",
}


def plain(v):
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


out = []
for case in json.load(open(sys.argv[1])):
    parser = get_parser(NAMES[case["parser"]])
    try:
        v = parser.parse(case["reply"])
    except OutputParserException as e:
        out.append({"outcome": "retry", "error": str(e)[:200]})
        continue
    except Exception as e:  # noqa: BLE001 - every other failure ends the step
        out.append({"outcome": "fail", "error": "%s: %s" % (type(e).__name__, str(e)[:200])})
        continue
    if v is None:
        out.append({"outcome": "fail", "error": "parser returned None"})
        continue
    out.append({"outcome": "ok", "type": type(v).__name__, "value": plain(v)})
json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write("\n")
