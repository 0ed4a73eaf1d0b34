# Shared by the black-box test scripts of the `ge` tool (sourced, not run).
# The sourcing script sets case_name first.

fail() {
  echo "FAIL ($case_name): $*" >&2
  exit 1
}

# expect_failure STATUS PATTERN COMMAND...: the command must exit with STATUS
# and print exactly one stderr line "ge: error: ..." that matches PATTERN, holds
# no control byte (CR, escape, ...) and shows none of ge's internals: no
# temporary file, no C++ library exception text.
expect_failure() {
  local want_status=$1 pattern=$2
  shift 2
  local status=0
  "$@" >stdout.txt 2>stderr.txt || status=$?
  [[ $status == "$want_status" ]] || fail "'$*' exited $status, expected $want_status; stderr: $(cat stderr.txt)"
  [[ $(wc -l <stderr.txt) == 1 ]] || fail "expected one error line, got: $(cat stderr.txt)"
  grep -q '^ge: error: ' stderr.txt || fail "error line lacks 'ge: error:': $(cat stderr.txt)"
  grep -q -- "$pattern" stderr.txt || fail "error line does not mention '$pattern': $(cat stderr.txt)"
  [[ -z $(LC_ALL=C tr -d '\n\040-\176\200-\377' <stderr.txt) ]] || fail "error line holds control bytes: $(cat -v stderr.txt)"
  ! grep -qiE '\.tmp\b|filesystem error|basic_|std::' stderr.txt || fail "error line shows internals: $(cat stderr.txt)"
}

# check_json FILE PYTHON_CHECKS: FILE holds exactly one JSON object, bound to
# `doc` for the checks (Python asserts; json, math and sys are imported).
check_json() {
  python3 - "$1" "$2" <<'PY'
import json, math, sys
text = open(sys.argv[1]).read()
doc = json.loads(text)  # raises on anything but one JSON document
assert isinstance(doc, dict), "not a JSON object"
exec(sys.argv[2])
PY
}
