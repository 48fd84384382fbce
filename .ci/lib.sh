# shellcheck shell=bash
# Shared by the database round trips (.ci/*-roundtrip.sh) and the benches that start private
# servers (benches/dump_accuracy.sh, benches/garbled_dump.sh); sourced, not run.

say() { printf '== %s\n' "$*" >&2; }

# install_without_service WHAT PACKAGE...: installs Debian packages as root while every service
# start is denied (a policy-rc.d that exits 101), so that the round trip's private server is
# the only one. Exits 2 naming WHAT when not root.
install_without_service() {
    local what=$1
    shift
    if [[ $(id -u) -ne 0 ]]; then
        echo "$what is missing and only root can install it (apt-get install $*)" >&2
        exit 2
    fi
    say "installing $*"
    local policy=/usr/sbin/policy-rc.d created_policy=""
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod +x "$policy"
        created_policy=$policy
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
    if [[ -n $created_policy ]]; then
        rm -f "$created_policy"
    fi
}

# start_mariadb DIR [MARIADBD_OPTION]...: a private MariaDB server for this run, its data in
# DIR/data, a unix socket DIR/mariadb.sock and no networking, its log DIR/mariadbd.err. Sets
# mariadb_pid (for stop_server), mariadb_socket and the array mariadb_client (the client, as
# root), and returns once the server answers; exits 2 with its log when it does not start. As
# root the server runs as root (it refuses to otherwise). MARIADBD names the server's binary;
# MARIADBD_NICE, a niceness to run it at (benchmarks, that share the machine).
start_mariadb() {
    local dir=$1
    shift
    local server=${MARIADBD:-$(command -v mariadbd || echo /usr/sbin/mariadbd)}
    local as_user=() niced=()
    if [[ $(id -u) -eq 0 ]]; then
        as_user=(--user=root)
    fi
    if [[ -n ${MARIADBD_NICE:-} ]]; then
        niced=(nice -n "$MARIADBD_NICE")
    fi
    mkdir -p "$dir"
    mariadb-install-db --no-defaults "${as_user[@]}" --datadir="$dir/data" \
        --auth-root-authentication-method=normal --skip-test-db >"$dir/install.log" 2>&1 \
        || { cat "$dir/install.log" >&2; exit 2; }
    mariadb_socket=$dir/mariadb.sock
    "${niced[@]}" "$server" --no-defaults "${as_user[@]}" --datadir="$dir/data" \
        --socket="$mariadb_socket" \
        --skip-networking --pid-file="$dir/mariadbd.pid" --log-error="$dir/mariadbd.err" \
        --max-allowed-packet=64M "$@" &
    mariadb_pid=$!
    mariadb_client=(mariadb --no-defaults --socket="$mariadb_socket" --user=root)
    for _ in $(seq 600); do
        if "${mariadb_client[@]}" -e 'SELECT 1' >/dev/null 2>&1; then
            return 0
        fi
        if ! kill -0 "$mariadb_pid" 2>/dev/null; then
            cat "$dir/mariadbd.err" >&2
            exit 2
        fi
        sleep 0.1
    done
    # One minute gone: the client's own error says why.
    "${mariadb_client[@]}" -e 'SELECT 1' >/dev/null
}

# stop_server PID: stops a private server by its PID (nothing when PID is empty or gone):
# TERM, ten seconds to finish, then KILL.
stop_server() {
    local pid=$1
    if [[ -z $pid ]] || ! kill -0 "$pid" 2>/dev/null; then
        return 0
    fi
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
