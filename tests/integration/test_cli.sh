#!/usr/bin/env bash
# test_cli.sh - one consistent command line (gen/cli): every command answers
# --help and -h with its own usage and exit 0, `help COMMAND` says the same,
# extra arguments and unknown options are usage errors (2), and the exit
# statuses follow the one table in `benchgen --help` and README.md. Needs no
# Python environment and writes only under its temporary directory.
set -u
. "$(dirname "$0")/lib.sh"

commands=(run cell status collect show report compare bisect bundle verify "env sync" "env list" "env add" info version)

"$BENCHGEN" --help >"$TMP/main.out" 2>&1
check "benchgen --help exits 0" test $? -eq 0
for c in "${commands[@]}"; do
  check "benchgen --help lists '$c'" grep -q "^  $c  " "$TMP/main.out"
done
for code in 0 1 2 3 130; do
  check "benchgen --help's exit table has $code" grep -Eq "^  $code +[a-z]" "$TMP/main.out"
done
"$BENCHGEN" -h | cmp -s - "$TMP/main.out"
check "benchgen -h is benchgen --help" test $? -eq 0
"$BENCHGEN" help | cmp -s - "$TMP/main.out"
check "benchgen help is benchgen --help" test $? -eq 0

for c in "${commands[@]}"; do
  # shellcheck disable=SC2086 # "env sync" is two words on purpose
  "$BENCHGEN" $c --help >"$TMP/long.out" 2>&1; rc_long=$?
  "$BENCHGEN" $c -h >"$TMP/short.out" 2>&1; rc_short=$?
  "$BENCHGEN" help $c >"$TMP/help.out" 2>&1; rc_help=$?
  check "'$c --help' exits 0" test $rc_long -eq 0
  check "'$c -h' exits 0" test $rc_short -eq 0
  check "'help $c' exits 0" test $rc_help -eq 0
  check "'$c --help' starts with its own usage" test "$(head -c $((16 + ${#c})) "$TMP/long.out")" = "usage: benchgen $c"
  check "'$c -h' and 'help $c' print the same as '$c --help'" \
    sh -c "cmp -s '$TMP/long.out' '$TMP/short.out' && cmp -s '$TMP/long.out' '$TMP/help.out'"
  check "'$c --help' has its exit statuses" grep -q '^exit status:' "$TMP/long.out"
  # shellcheck disable=SC2086
  "$BENCHGEN" $c --no-such-option >/dev/null 2>&1
  check "'$c --no-such-option' exits 2" test $? -eq 2
done

# issue 14's cases, one by one
"$BENCHGEN" run "$TMP/nonexist.yaml" >/dev/null 2>"$TMP/err"
check "run nonexist.yaml exits 2" test $? -eq 2
check "... and names the file" grep -q "nonexist.yaml: No such file" "$TMP/err"
"$BENCHGEN" run --resume "$TMP/nonexistent" >/dev/null 2>&1
check "run --resume /nonexistent exits 2" test $? -eq 2
"$BENCHGEN" show "$TMP/nonexistent" >/dev/null 2>&1
check "show /nonexistent exits 2" test $? -eq 2
"$BENCHGEN" report "$TMP/nonexistent" --out "$TMP/r" -q >/dev/null 2>&1
check "report /nonexistent exits 2" test $? -eq 2
"$BENCHGEN" compare "$TMP/nonexistent" tests/fixtures/compare/base >/dev/null 2>&1
check "compare with a missing run exits 2" test $? -eq 2
"$BENCHGEN" verify "$TMP/nonexistent.tar.gz" >/dev/null 2>&1
check "verify of a missing file exits 2" test $? -eq 2
BENCHGEN_CACHE=$TMP/cache "$BENCHGEN" env sync nosuchenv >/dev/null 2>"$TMP/err"
check "env sync nosuchenv exits 2" test $? -eq 2
check "... and lists the known environments" grep -q "known environments: .*base" "$TMP/err"
# `help` answers --help and -h too (and `help help`), with its own usage (issue 27)
for a in --help -h help; do
  "$BENCHGEN" help $a >"$TMP/hh.out" 2>&1
  rc=$?
  check "'help $a' exits 0 (got $rc)" test "$rc" -eq 0
  check "'help $a' prints help's usage" test "$(head -1 "$TMP/hh.out")" = "usage: benchgen help [COMMAND]"
  check "'help $a' has its exit statuses" grep -q '^exit status:' "$TMP/hh.out"
done
"$BENCHGEN" help nosuch >/dev/null 2>&1
check "'help nosuch' still exits 2" test $? -eq 2

"$BENCHGEN" info --help | head -1 | grep -q '^usage: benchgen info'
check "info --help prints info's usage" test $? -eq 0
"$BENCHGEN" version --help | head -1 | grep -q '^usage: benchgen version'
check "version --help prints version's usage" test $? -eq 0
"$BENCHGEN" info extra >/dev/null 2>"$TMP/err"
check "info extra exits 2" test $? -eq 2
check "... naming the extra argument" grep -q "unexpected argument 'extra'" "$TMP/err"
"$BENCHGEN" version extra >/dev/null 2>&1
check "version extra exits 2" test $? -eq 2
"$BENCHGEN" show a b >/dev/null 2>&1
check "show a b exits 2" test $? -eq 2
"$BENCHGEN" env list extra >/dev/null 2>&1
check "env list extra exits 2" test $? -eq 2
"$BENCHGEN" env add onlyname >/dev/null 2>"$TMP/err"
check "env add NAME without PYTHON exits 2" test $? -eq 2
check "... saying what is missing" grep -q "missing PYTHON" "$TMP/err"
BENCHGEN_CACHE=$TMP/cache "$BENCHGEN" env add name python3 extra >/dev/null 2>"$TMP/err"
check "env add NAME PYTHON extra exits 2" test $? -eq 2
check "... saying a prefix follows --" grep -q "unexpected argument 'extra' (a command prefix follows --)" "$TMP/err"
BENCHGEN_CACHE=$TMP/cache "$BENCHGEN" env add name -- python3 >/dev/null 2>&1
check "env add NAME -- PYTHON exits 2" test $? -eq 2
"$BENCHGEN" env >/dev/null 2>&1
check "env without a subcommand exits 2" test $? -eq 2
"$BENCHGEN" env bogus >/dev/null 2>&1
check "env bogus exits 2" test $? -eq 2
"$BENCHGEN" frobnicate >/dev/null 2>&1
check "an unknown command exits 2" test $? -eq 2
"$BENCHGEN" help frobnicate >/dev/null 2>&1
check "help of an unknown command exits 2" test $? -eq 2
"$BENCHGEN" >/dev/null 2>&1
check "no command exits 2" test $? -eq 2

# --retry: every status is checked before anything runs
cp -r tests/fixtures/compare/base "$TMP/run"
before=$(sha256sum "$TMP/run/run.db")
"$BENCHGEN" run --resume "$TMP/run" --retry eror >/dev/null 2>"$TMP/err"
check "run --resume DIR --retry eror exits 2" test $? -eq 2
check "... listing the valid statuses" grep -q "unknown status 'eror' (statuses: ok, error, crash, timeout, oom, unsupported, skipped, interrupted)" "$TMP/err"
check "... and leaves the run untouched" test "$(sha256sum "$TMP/run/run.db")" = "$before"
"$BENCHGEN" run --resume "$TMP/run" --retry error,, >/dev/null 2>&1
check "an empty status in --retry exits 2" test $? -eq 2
"$BENCHGEN" run --retry error tests/specs/good-minimal.yaml >/dev/null 2>&1
check "--retry without --resume exits 2" test $? -eq 2
"$BENCHGEN" run tests/specs/good-minimal.yaml --repeats 0 >/dev/null 2>"$TMP/err"
check "--repeats 0 exits 2" test $? -eq 2
check "... giving the range" grep -q -- "--repeats 0: expected an integer from 1 to 1000" "$TMP/err"

# run --ab: the same help, the same options, the same usage errors as run
"$BENCHGEN" run tests/specs/good-minimal.yaml --ab --help >"$TMP/abhelp.out" 2>&1
check "'run SPEC --ab --help' exits 0" test $? -eq 0
"$BENCHGEN" run --help | cmp -s - "$TMP/abhelp.out"
check "... and prints run's help" test $? -eq 0
check "run's usage lists the options --ab takes" grep -q -- "--ab \[--out DIR\] \[--only KEY=VAL,...\] \[--dry-run\]" "$TMP/abhelp.out"
"$BENCHGEN" run tests/specs/good-minimal.yaml --ab --only model=mlp --dry-run --wait-idle 1 --repeats 2 >"$TMP/abdry.out" 2>&1
check "run --ab takes --only, --dry-run, --wait-idle and --repeats (exit 0)" test $? -eq 0
check "... and its dry run prints the interleaved plan" grep -q "^interleaved A/B plan: " "$TMP/abdry.out"
"$BENCHGEN" run tests/specs/good-minimal.yaml -Z >"$TMP/q.out" 2>&1; rc_q=$?
"$BENCHGEN" run tests/specs/good-minimal.yaml --ab -Z >"$TMP/abq.out" 2>&1; rc_abq=$?
check "run -Z and run --ab -Z: the same usage error (no such option; exit 2)" \
  sh -c "test $rc_q -eq 2 && test $rc_abq -eq 2 && cmp -s '$TMP/q.out' '$TMP/abq.out'"
"$BENCHGEN" run tests/specs/good-minimal.yaml --ab --cpus-per-cell 1 >/dev/null 2>"$TMP/err"
check "run --ab --cpus-per-cell exits 2 (--ab runs one process at a time)" test $? -eq 2
check "... saying so" grep -q -- "--ab runs locally, one cell at a time" "$TMP/err"

# option forms the one parser accepts
"$BENCHGEN" run --dry-run --only=model=mlp tests/specs/good-minimal.yaml >"$TMP/dry.out" 2>&1
check "--name=value and options before the argument" test $? -eq 0
"$BENCHGEN" run tests/specs/good-minimal.yaml --only >/dev/null 2>"$TMP/err"
check "an option without its value exits 2" test $? -eq 2
check "... naming the option" grep -q -- "--only needs a value" "$TMP/err"
"$BENCHGEN" run -- tests/specs/good-minimal.yaml --dry-run >/dev/null 2>"$TMP/err"
check "after --, everything is an argument (two SPECs: exit 2)" test $? -eq 2

# README.md's command reference against --help, both ways: every command and
# every option that exists is listed, and nothing listed is missing.
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086
  "$BENCHGEN" help $c >"$TMP/help-$c.out" 2>&1
done
python3 - "$TMP" "${commands[@]}" >"$TMP/readme.out" 2>&1 <<'PY'
import re, sys
tmp, cmds = sys.argv[1], sys.argv[2:]
text = open("README.md").read()
m = re.search(r"## Commands\n.*?```\n(.*?)```", text, re.S)
if not m:
    sys.exit("README.md: no ``` block under '## Commands'")
lines, cur = {}, None
for line in m.group(1).splitlines():
    if line.startswith("benchgen "):
        words = line.split()
        cur = " ".join(words[1:3]) if words[1] == "env" else words[1]
    if cur:
        lines.setdefault(cur, []).append(line)
bad = 0
for c in cmds:
    help_text = open(f"{tmp}/help-{c}.out").read()
    opts = set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z-]*)", help_text.split("\noptions:\n")[1], re.M)) - {"--help"}
    listed = set(re.findall(r"(--[a-z][a-z-]*)", " ".join(lines.get(c, []))))
    if c not in lines:
        print(f"README.md does not list `benchgen {c}`"); bad += 1
    for o in sorted(opts - listed):
        print(f"README.md: `benchgen {c}` lacks {o} (in --help)"); bad += 1
    for o in sorted(listed - opts):
        print(f"README.md: `benchgen {c}` lists {o}, which --help does not have"); bad += 1
for c in lines:
    if c not in cmds and c != "help":
        print(f"README.md lists `benchgen {c}`, which is no command"); bad += 1
sys.exit(1 if bad else 0)
PY
rc=$?
check "README.md's command reference matches every command's --help" test $rc -eq 0
[ $rc -eq 0 ] || cat "$TMP/readme.out"
python3 - <<'PY' >"$TMP/readme-exit.out" 2>&1
import re, subprocess, sys, os
text = open("README.md").read()
table = set(re.findall(r"^\| (\d+) \|", text, re.M))
out = subprocess.run([os.environ["BENCHGEN"], "--help"], capture_output=True, text=True).stdout
helps = set(re.findall(r"^  (\d+) +[a-z]", out, re.M))
sys.exit(0 if table == helps and {"0", "1", "2", "3", "130"} <= table else f"README {sorted(table)} vs --help {sorted(helps)}")
PY
rc=$?
check "README.md's exit-status table has the codes of benchgen --help (0 1 2 3 130)" test $rc -eq 0
[ $rc -eq 0 ] || cat "$TMP/readme-exit.out"

# compare --help's verdict rule is docs/COMPARE.md's, word for word ("The
# verdict rule": the sentence from "Verdict per cell:" to "settle it."), line
# breaks aside
rule() { perl -0777 -ne 's/\s+/ /g; print "$1\n" while /(Verdict per cell: .*?would settle it\.)/g'; }
help_rule=$("$BENCHGEN" compare --help 2>&1 | rule)
doc_rule=$(rule <docs/COMPARE.md)
check "compare --help states the verdict rule" test -n "$help_rule"
check "docs/COMPARE.md states the verdict rule in one sentence" test -n "$doc_rule" -a "$(echo "$doc_rule" | wc -l)" -eq 1
check "... and they are the same words" test "$help_rule" = "$doc_rule"
[ "$help_rule" = "$doc_rule" ] || printf 'help: %s\ndocs: %s\n' "$help_rule" "$doc_rule"

# `env list`'s columns: its "# NAME  STATE  HASH  PATH  VARIANT" comment, what README.md
# and docs/ENVIRONMENTS.md say, and the order of a real line (an empty cache
# with one lock: the line says "missing")
H=$TMP/listhome
mkdir -p "$H/data/envs"
printf 'six==1.17.0\n' >"$H/data/envs/one.txt"
BENCHGEN_HOME=$H BENCHGEN_CACHE=$TMP/listcache "$BENCHGEN" env list >"$TMP/list.out" 2>&1
cols=$(sed -n 's/^# \([A-Z][A-Z ]*\)$/\1/p' "$TMP/list.out")
check "env list names its columns" test "$cols" = "NAME  STATE  HASH  PATH  VARIANT"
check "README.md quotes them as env list prints them" grep -qF "\`$cols\`" README.md
check "docs/ENVIRONMENTS.md too" grep -qF "\`$cols\`" docs/ENVIRONMENTS.md
check "a line follows that order (name, state, hash, path)" \
  awk '$1 == "one" && $2 == "missing" && $3 ~ /^[0-9a-f]+$/ && length($3) == 16 && $4 ~ ("/envs/one-" $3 "$") { ok = 1 }
       END { exit !ok }' \
  "$TMP/list.out"
finish
