#!/usr/bin/env bash
# Builds OpenZL's `zli` (facebook/openzl) and measures its trained CSV profile on CSV files, the
# baseline issue 33's size target names ("within 10 % of OpenZL's trained CSV profile").
#
#   tools/openzl.sh [--build-only] CSV...
#
# For each CSV it trains the `csv` profile on that file (`zli train --profile csv`, the best case for
# OpenZL: the compressor is fitted to the very file it then compresses), compresses with the trained
# compressor, decompresses, checks the round trip byte for byte, and prints
#   <file> <csv bytes> <zli bytes> <xz -9 bytes>
# The trained compressor's own bytes are not counted, as OpenZL's documentation reports it.
#
# Environment:
#   OPENZL_DIR   where the checkout and build live (default: target/openzl)
#   OPENZL_REV   the commit to build (default: the one measured in tools/BENCHMARKS.md)
#   OPENZL_GIT, ZSTD_GIT, LZ4_GIT, XGBOOST_GIT, DMLC_GIT
#                local git repositories to take the sources from instead of GitHub (a machine
#                without access to GitHub); each defaults to its GitHub address
#   OPENZL_TRAIN_SECS  --max-time-secs for training (default 300)
#   JOBS         parallel compile jobs (default 1: the build machines are shared)
#
# Needs git, make, cmake, a C11/C++17 compiler and xz. The build takes long (xgboost, which zli
# links for its ML selector, is most of it); a second run reuses it.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
dir=${OPENZL_DIR:-$here/target/openzl}
rev=${OPENZL_REV:-f2916ceb}
jobs=${JOBS:-1}
train_secs=${OPENZL_TRAIN_SECS:-300}
openzl_git=${OPENZL_GIT:-https://github.com/facebook/openzl.git}
zstd_git=${ZSTD_GIT:-https://github.com/facebook/zstd.git}
lz4_git=${LZ4_GIT:-https://github.com/lz4/lz4.git}
xgboost_git=${XGBOOST_GIT:-https://github.com/dmlc/xgboost.git}
dmlc_git=${DMLC_GIT:-https://github.com/dmlc/dmlc-core.git}

build_only=0
if [ "${1:-}" = "--build-only" ]; then build_only=1; shift; fi

for tool in git make cmake cc c++ xz; do
  command -v "$tool" >/dev/null || { echo "openzl.sh: $tool is missing (apt-get install $tool)" >&2; exit 2; }
done

# checkout GIT REV DIR: DIR at REV, or at GIT's default branch when REV is not in it (a local
# mirror older than the submodule pin).
checkout() {
  local git=$1 want=$2 to=$3
  [ -e "$to/.git" ] || git clone -q "$git" "$to"
  if git -C "$to" cat-file -e "$want^{commit}" 2>/dev/null; then
    git -C "$to" checkout -q "$want"
  else
    echo "openzl.sh: $want is not in $git; using $(git -C "$to" rev-parse --short HEAD)" >&2
  fi
}

# The submodule pins of the OpenZL commit, read from its tree.
pin() { git -C "$1" ls-tree HEAD "$2" | awk '{print $3}'; }

build() {
  checkout "$openzl_git" "$rev" "$dir"
  checkout "$zstd_git" "$(pin "$dir" deps/zstd)" "$dir/deps/zstd"
  checkout "$lz4_git" "$(pin "$dir" deps/lz4)" "$dir/deps/lz4"
  checkout "$xgboost_git" "$(pin "$dir" deps/xgboost)" "$dir/deps/xgboost"
  checkout "$dmlc_git" "$(pin "$dir/deps/xgboost" dmlc-core)" "$dir/deps/xgboost/dmlc-core"
  # SKIP_BUILDDEPS_CHECK: the dependencies are checked out above; the Makefile would otherwise try
  # `git submodule update` over the network.
  nice make -C "$dir" -j"$jobs" SKIP_BUILDDEPS_CHECK=1 zli >"$dir/build.log" 2>&1 ||
    { tail -30 "$dir/build.log" >&2; echo "openzl.sh: the build failed ($dir/build.log)" >&2; exit 2; }
}

[ -x "$dir/zli" ] || build
[ "$build_only" = 1 ] && { echo "$dir/zli"; exit 0; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for csv in "$@"; do
  name=$(basename "$csv")
  nice "$dir/zli" train --profile csv --max-time-secs "$train_secs" "$csv" --output "$work/$name.zlc" \
    >"$work/train.log" 2>&1 || { tail -5 "$work/train.log" >&2; exit 2; }
  "$dir/zli" compress --compressor "$work/$name.zlc" "$csv" --output "$work/$name.zl" >/dev/null 2>&1
  "$dir/zli" decompress "$work/$name.zl" --output "$work/$name.out" >/dev/null 2>&1
  cmp -s "$csv" "$work/$name.out" || { echo "openzl.sh: $name did not round-trip" >&2; exit 1; }
  echo "$name $(stat -c %s "$csv") $(stat -c %s "$work/$name.zl") $(xz -9 -c "$csv" | wc -c)"
done
