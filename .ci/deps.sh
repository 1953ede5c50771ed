#!/bin/sh
# Install what `make run` / `make test` need when it is missing (Debian).
# As root: apt-get installs it.  Otherwise: print the exact line and fail.
set -eu

need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pc() { have_cmd pkg-config && pkg-config --exists "$1" 2>/dev/null; }

have_cmd cmake || need="$need cmake"
have_cmd cc || have_cmd gcc || need="$need gcc"
have_cmd make || need="$need make"
have_cmd pkg-config || need="$need pkg-config"
have_pc cmocka || need="$need libcmocka-dev"
have_pc jansson || need="$need libjansson-dev"
have_pc yaml-0.1 || need="$need libyaml-dev"
# The Hub reader (KVB_WITH_HUB=AUTO builds without it when missing).
have_pc libcurl || need="$need libcurl4-openssl-dev"
[ -x /usr/bin/python3 ] || need="$need python3"
# Extra packages a caller asks for (CI), each only when missing.
for p in ${KVB_DEPS_EXTRA:-}; do
    dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done

[ -z "$need" ] && exit 0

line="apt-get install -y --no-install-recommends$need"
if [ "$(id -u)" != 0 ]; then
    echo "kvbudget: missing packages. Run as root:" >&2
    echo "    apt-get update && $line" >&2
    exit 1
fi
echo "kvbudget: installing$need" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $need >/dev/null
