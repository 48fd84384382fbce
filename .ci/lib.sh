# Shared by the database round trips (.ci/*-roundtrip.sh); sourced, not run.

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
