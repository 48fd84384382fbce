#!/usr/bin/env bash
# A real database round trip for dump-aware `undouble fix`.
#
# Starts a private MariaDB server in a temporary directory (no network, a unix socket there,
# stopped by its PID on every exit path), creates a latin1 table and fills it the way damage
# happens: real multilingual text sent through a connection declared latin1 (double-encoded
# in the dump), the same mistake made twice (triple-encoded), text stored correctly,
# legitimate look-alikes, blobs whose bytes look double-encoded, and a utf8mb4 control column;
# the table itself created through the latin1 connection, with a CHECK constraint whose
# literals that connection garbles, and a status column the rows fill with what it allows.
# Then: mariadb-dump --default-character-set=utf8mb4 (no --hex-blob), undouble fix
# --convert-charset utf8mb4, load into a fresh database (going on past errors, which the
# verdict counts: a literal left garbled makes the repaired rows fail the check), and compare
# every cell with its true value. The same again with the schema and the data dumped apart
# (`--no-data`, `--no-create-info`; the data repaired with `--schema`), and as the guide's (docs/GUIDE.md)
# pipeline (`mariadb-dump ... | undouble fix --convert-charset utf8mb4 | mariadb ...`, under
# `set -o pipefail`). And the same pipeline without --convert-charset: undouble refuses (status
# 2, the pipeline fails) and no repaired row is loaded into the latin1 columns; and with
# --keep-charset, what the refusal prevents: every repaired character latin1 lacks reads back
# as `?`. Prints one line per cell class and `N passed, N failed` for each; exits 1 on a
# failure.
#
# Installs mariadb-server and mariadb-client from Debian when they are missing (as root), with
# service start-up denied. Uses target/release/undouble, built if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

source .ci/lib.sh

# ---- MariaDB, installed without a service
if ! command -v mariadb-install-db >/dev/null || ! command -v mariadb-dump >/dev/null; then
    install_without_service MariaDB mariadb-server mariadb-client
    if pgrep -x mariadbd >/dev/null; then
        echo "warning: a MariaDB service is running (not started by this script; left alone)" >&2
    fi
fi
mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)

# ---- undouble
undouble=$root/target/release/undouble
if [[ ! -x $undouble ]]; then
    say "building undouble (release)"
    cargo build --release --locked --quiet
fi

# ---- a private server
work=$(mktemp -d "${TMPDIR:-/tmp}/undouble-mariadb.XXXXXX")
mariadb_pid=""
cleanup() {
    stop_server "$mariadb_pid"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "starting a private mariadbd in $work"
MARIADBD=$mariadbd start_mariadb "$work" --innodb-buffer-pool-size=64M
client=("${mariadb_client[@]}")
socket=$mariadb_socket

# ---- the damage, done the classic way
# The clean-text corpus (benches/cleantext/build.sh) if it was built, else the committed
# sample; ROUNDTRIP_TEXT names another file or directory of clean text.
source_text=${ROUNDTRIP_TEXT:-$root/benches/data/cleantext}
if [[ ! -e $source_text ]]; then
    source_text=$root/corpus/clean-multilingual.txt
fi
say "generating rows from $source_text"
python3 .ci/mariadb_roundtrip.py generate "$work" "$source_text" corpus/clean-multilingual.txt >&2
"${client[@]}" <"$work/schema.sql"
"${client[@]}" --default-character-set=latin1 src <"$work/via-latin1.sql"
"${client[@]}" --default-character-set=utf8mb4 src <"$work/via-utf8mb4.sql"

# ---- dump, repair, load
say "dumping, repairing, loading"
mariadb-dump --no-defaults --socket="$socket" --user=root --default-character-set=utf8mb4 \
    src >"$work/dump.sql"
"$undouble" scan --json "$work/dump.sql" >"$work/scan.json" || [[ $? -eq 1 ]]
status=0
"$undouble" fix -q --convert-charset utf8mb4 "$work/dump.sql" -o "$work/fixed.sql" || status=$?
if [[ $status -ne 0 ]]; then
    echo "undouble fix exited with $status (0 expected: repaired)" >&2
    exit 2
fi
"${client[@]}" -e 'CREATE DATABASE dst'
# load DB NAME FILE: loads FILE into DB going on past errors, for the verdict to count what they
# cost: what the client says goes to NAME.load.err (appended), its ERROR lines (without the
# statements, which hold blobs) to standard error.
load() {
    "${client[@]}" --force --default-character-set=utf8mb4 "$1" <"$3" 2>"$work/load.err" \
        || true
    cat "$work/load.err" >>"$work/$2.load.err"
    grep -a ERROR "$work/load.err" >&2 || true
}
load dst loaded "$work/fixed.sql"
# read_back DB NAME: the cells of DB's table (NAME.tsv), its columns' charsets
# (NAME-charsets.tsv) and its CHECK clauses (NAME-checks.tsv), for the verdict.
read_back() {
    "${client[@]}" --default-character-set=utf8mb4 -N -B "$1" \
        -e 'SELECT id, HEX(v), HEX(t), HEX(m), HEX(b), HEX(vb), HEX(ctl), HEX(st) FROM notes
            ORDER BY id' \
        >"$work/$2.tsv"
    "${client[@]}" -N -B -e "SELECT COLUMN_NAME, IFNULL(CHARACTER_SET_NAME, 'NULL')
        FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '$1' AND TABLE_NAME = 'notes'" \
        >"$work/$2-charsets.tsv"
    "${client[@]}" --default-character-set=utf8mb4 -N -B -e "SELECT CONSTRAINT_NAME,
        HEX(CHECK_CLAUSE) FROM information_schema.CHECK_CONSTRAINTS
        WHERE CONSTRAINT_SCHEMA = '$1' AND TABLE_NAME = 'notes'" >"$work/$2-checks.tsv"
}
read_back dst loaded

# ---- the same, dumped as schema and data apart (--no-data, --no-create-info): the data dump
# is repaired with the tables of the schema dump (--schema), the schema dump converted
say "dumping schema and data apart, repairing with --schema, loading"
dump=(mariadb-dump --no-defaults --socket="$socket" --user=root --default-character-set=utf8mb4)
"${dump[@]}" --no-data src >"$work/schema-only.sql"
"${dump[@]}" --no-create-info src >"$work/data-only.sql"
"$undouble" fix -q --convert-charset utf8mb4 "$work/schema-only.sql" \
    -o "$work/schema-fixed.sql" || [[ $? -eq 1 ]]
status=0
"$undouble" fix -q --convert-charset utf8mb4 --schema "$work/schema-only.sql" \
    "$work/data-only.sql" -o "$work/data-fixed.sql" 2>"$work/data-fix.err" || status=$?
if [[ $status -ne 0 ]]; then
    echo "undouble fix --schema exited with $status (0 expected: repaired)" >&2
    exit 2
fi
"${client[@]}" -e 'CREATE DATABASE dst2'
load dst2 loaded-apart "$work/schema-fixed.sql"
load dst2 loaded-apart "$work/data-fixed.sql"
read_back dst2 loaded-apart

# ---- the guide's pipeline (docs/GUIDE.md): dump | undouble fix --convert-charset utf8mb4 | client
say "piping mariadb-dump into undouble fix --convert-charset utf8mb4 into mariadb"
"${client[@]}" -e 'CREATE DATABASE dst3'
status=0
"${dump[@]}" src | "$undouble" fix -q --convert-charset utf8mb4 \
    | "${client[@]}" --default-character-set=utf8mb4 dst3 2>"$work/piped.load.err" || status=$?
grep -a ERROR "$work/piped.load.err" >&2 || true
if [[ $status -ne 0 ]]; then
    echo "the pipeline exited with $status (0 expected)" >&2
    verdict_piped=1
fi
read_back dst3 piped

# ---- the same pipeline without --convert-charset: refused
say "the same pipeline without --convert-charset (refused)"
"${client[@]}" -e 'CREATE DATABASE dst4'
set +e
"${dump[@]}" src | "$undouble" fix -q 2>"$work/refused.err" \
    | "${client[@]}" --default-character-set=utf8mb4 dst4 2>/dev/null
statuses=("${PIPESTATUS[@]}")
set -e
fix_status=${statuses[1]}
# What pipefail makes of it: the last non-zero status.
status=0
for code in "${statuses[@]}"; do
    [[ $code -eq 0 ]] || status=$code
done
sed 's/^/  undouble: /' "$work/refused.err" | cut -c1-200 >&2
echo "$fix_status $status" >"$work/refused.status"
read_back src source
if "${client[@]}" -N -B -e "SELECT 1 FROM information_schema.TABLES
        WHERE TABLE_SCHEMA = 'dst4' AND TABLE_NAME = 'notes'" | grep -q 1; then
    read_back dst4 refused
else
    : >"$work/refused.tsv"
fi

# ---- the same pipeline with --keep-charset: what the refusal prevents. On a copy of the text
# columns without the CHECK (whose repaired literals latin1 cannot hold either: the CREATE TABLE
# would fail, error 1918), made after the dumps above so that they do not see it.
say "the same pipeline with --keep-charset (the columns stay latin1)"
"${client[@]}" -e 'CREATE TABLE src.plain (id INT NOT NULL PRIMARY KEY, v VARCHAR(2000),
    t TEXT, m MEDIUMTEXT) DEFAULT CHARSET=latin1;
    INSERT INTO src.plain SELECT id, v, t, m FROM src.notes; CREATE DATABASE dst5'
set +e
"${dump[@]}" src plain | "$undouble" fix -q --keep-charset \
    | "${client[@]}" --default-character-set=utf8mb4 dst5 2>"$work/kept.load.err"
statuses=("${PIPESTATUS[@]}")
set -e
if [[ ${statuses[*]} != "0 0 0" ]]; then
    echo "the --keep-charset pipeline exited with ${statuses[*]}" >&2
    verdict_kept=1
fi
grep -a ERROR "$work/kept.load.err" | cut -c1-300 >&2 || true
"${client[@]}" --default-character-set=utf8mb4 -N -B dst5 \
    -e 'SELECT id, HEX(v), HEX(t), HEX(m) FROM plain ORDER BY id' >"$work/kept.tsv"

# ---- ranges of a real dump: the table copied, bytes as they are, into as many tables as make
# a dump of several 8 MiB blocks (each copy a CREATE TABLE between the rows of the others), cut
# into four ranges inside a character, a quoted value and an extended INSERT's tuples
say "ranges of a real dump (fix --range, scan --range, merge)"
copies=$(( 30000000 / $(stat -c %s "$work/dump.sql") + 1 ))
{
    echo 'CREATE DATABASE big;'
    for k in $(seq "$copies"); do
        echo "CREATE TABLE big.notes_$k LIKE src.notes; INSERT INTO big.notes_$k SELECT * FROM src.notes;"
    done
} | "${client[@]}"
"${dump[@]}" big >"$work/big.sql"
verdict_ranges=0
python3 benches/ranges.py --undouble "$undouble" --fix-args='--convert-charset utf8mb4' \
    "$work/big.sql" || verdict_ranges=1

# ---- the verdicts (the last line of each is `N passed, N failed`)
verdict=0
[[ $verdict_ranges -eq 0 ]] || verdict=1
say "one dump"
python3 .ci/mariadb_roundtrip.py check "$work/expected.json" "$work/loaded.tsv" \
    "$work/loaded-charsets.tsv" "$work/scan.json" "$work/loaded-checks.tsv" \
    "$work/loaded.load.err" || verdict=1
say "schema and data dumped apart"
python3 .ci/mariadb_roundtrip.py check "$work/expected.json" "$work/loaded-apart.tsv" \
    "$work/loaded-apart-charsets.tsv" "$work/scan.json" "$work/loaded-apart-checks.tsv" \
    "$work/loaded-apart.load.err" || verdict=1
say "piped: mariadb-dump | undouble fix --convert-charset utf8mb4 | mariadb"
python3 .ci/mariadb_roundtrip.py check "$work/expected.json" "$work/piped.tsv" \
    "$work/piped-charsets.tsv" "$work/scan.json" "$work/piped-checks.tsv" \
    "$work/piped.load.err" || verdict=1
[[ ${verdict_piped:-0} -eq 0 ]] || verdict=1
say "piped without --convert-charset: refused"
python3 .ci/mariadb_roundtrip.py check-refused "$work/source.tsv" "$work/refused.tsv" \
    "$work/refused.status" || verdict=1
say "piped with --keep-charset: what latin1 cannot hold is lost"
python3 .ci/mariadb_roundtrip.py check-kept "$work/expected.json" "$work/kept.tsv" || verdict=1
[[ ${verdict_kept:-0} -eq 0 ]] || verdict=1
exit "$verdict"
