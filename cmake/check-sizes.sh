#!/usr/bin/env bash
# Lists the tracked C++/CUDA sources over MAX_FILE lines (default 500) and the
# functions over MAX_FUNCTION lines (default 120), measured with Universal Ctags
# (its function end lines) and, for Catch2 test cases (macros ctags does not see),
# from a TEST_CASE line to the closing brace at column 0. A long function may keep
# its length when its comment says why; those are listed too, marked "(reason given)"
# when the comment lines right above it contain "Long", "one kernel" or "One team".
#
#   cmake/check-sizes.sh [MAX_FILE [MAX_FUNCTION]]
#
# Exit status: 0 when every listed entry gives a reason, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
max_file=${1:-500}
max_fn=${2:-120}
cd "$here"
command -v ctags >/dev/null || { echo "check-sizes: ctags (Universal Ctags) not found" >&2; exit 2; }
status=0
files=$(git ls-files '*.cpp' '*.hpp' '*.cu' '*.h')

echo "files over $max_file lines:"
for f in $files; do
  n=$(wc -l <"$f")
  if [ "$n" -gt "$max_file" ]; then
    if sed -n '1,15p' "$f" | grep -q -i "long file"; then
      echo "  $n $f (reason given)"
    else
      echo "  $n $f"
      status=1
    fi
  fi
done

# reason_above FILE LINE: the comment block above LINE states why it is long.
reason_above() {
  local f=$1 l=$2 from
  from=$(( l > 12 ? l - 12 : 1 ))
  sed -n "${from},$(( l - 1 ))p" "$f" | grep '^ *//' | grep -q -E "Long|one kernel|One team"
}

echo "functions over $max_fn lines:"
for f in $files; do
  while read -r len line name; do
    if reason_above "$f" "$line"; then
      echo "  $len $f:$line $name (reason given)"
    else
      echo "  $len $f:$line $name"
      status=1
    fi
  done < <(
    {
      ctags --fields=+neK -o - --language-force=C++ "$f" 2>/dev/null |
        awk -F'\t' -v max="$max_fn" '{
          kind = ""; line = ""; end = "";
          for (i = 4; i <= NF; i++) {
            if ($i == "function") kind = $i;
            if ($i ~ /^line:/) line = substr($i, 6);
            if ($i ~ /^end:/) end = substr($i, 5);
          }
          if (kind == "function" && line != "" && end != "" && end - line + 1 > max) print end - line + 1, line, $1;
        }'
      awk -v max="$max_fn" '
        /^(TEMPLATE_)?TEST_CASE\(/ { start = NR; next }
        start && /^}/ { if (NR - start + 1 > max) print NR - start + 1, start, "TEST_CASE"; start = 0 }
      ' "$f"
    } | sort -rn
  )
done
exit $status
