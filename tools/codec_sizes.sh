#!/usr/bin/env bash
# Size table of issue 33's codec work: each CSV packed with `karc init`'s config, beside xz -9 of
# the CSV, with the file's parts (`karc inspect --json`, kept in OUT_DIR with the per-column sizes).
#
#   tools/codec_sizes.sh OUT_DIR CSV...
#
# Prints one Markdown row a table: name, CSV bytes, karc bytes, xz -9 bytes, karc / xz, public and
# private bytes. Uses target/release/karc (build it first). The archives are unencrypted
# (--no-encryption): sealing adds a fixed age header the codecs do not control.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
karc=${KARC:-$here/target/release/karc}
out=$1; shift
mkdir -p "$out"
echo "| table | CSV | karc | xz -9 | karc / xz | container | public | private |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for csv in "$@"; do
  name=$(basename "$csv" .csv)
  cfg="$out/$name.toml"
  [ -e "$cfg" ] || "$karc" init "$csv" -o "$cfg" >/dev/null 2>&1
  "$karc" pack -c "$cfg" --no-encryption -o "$out/$name.karc" "$csv" >/dev/null 2>&1
  "$karc" restore "$out/$name.karc" -o "$out/$name.restored" >/dev/null 2>&1
  cmp -s "$csv" "$out/$name.restored" || { echo "codec_sizes.sh: $name did not restore" >&2; exit 1; }
  rm -f "$out/$name.restored"
  "$karc" inspect --json "$out/$name.karc" >"$out/$name.json"
  parts=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["container_bytes"], j["public_bytes"], j["private_bytes"])' "$out/$name.json")
  k=$(stat -c %s "$out/$name.karc")
  x=$(xz -9 -c "$csv" | wc -c)
  echo "| $name | $(stat -c %s "$csv") | $k | $x | $(python3 -c "print(f'{$k/$x:.3f}')") | ${parts// / | } |"
done
