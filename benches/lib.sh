# Shared by the bench scripts (sourced): installs a missing tool from Debian's packages.

# need COMMAND PACKAGE: installs PACKAGE when COMMAND is missing (as root), or says what to do.
need() {
    command -v "$1" >/dev/null 2>&1 && return
    if [[ $(id -u) -ne 0 ]]; then
        echo "${0##*/}: $1 is missing; install the Debian package $2" >&2
        exit 1
    fi
    apt-get update -qq && apt-get install -y -qq "$2" >/dev/null
}
