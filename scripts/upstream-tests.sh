#!/usr/bin/env bash
# Measures <ctorch/torch.h> against PyTorch 1.13.1's own C++ API tests: test/cpp/api/'s tensor files
# (tensor, tensor_options, tensor_indexing, tensor_cuda, tensor_options_cuda, parallel) and its C++
# frontend files (autograd, modules, optim, functional, sequential, modulelist, moduledict,
# ordered_dict, nn_utils, init, serialize, dataloader), taken unedited from Debian's pytorch source
# package and built against an installed ctorch as a find_package(Torch) project (tests/upstream/).
# Every TEST is counted on its own: pass, fail, does not compile, not run, excluded
# (tests/upstream/exclusions.txt, with its reason). CUDA tests run on 2 emulated devices.
#
# Usage: scripts/upstream-tests.sh [ctorch-install-prefix]
#   Without a prefix, builds the build tree ($CTORCH_BUILD_DIR, default build/) and installs it
#   into a scratch prefix.
# Cache: ${XDG_CACHE_HOME:-$HOME/.cache}/ctorch/upstream holds the source tarball (fetched once
#   with apt-get source through a private apt directory; the system's apt setup is not touched),
#   the extracted test files and the scratch build.
# Scratch build: $CTORCH_UPSTREAM_WORK (default <cache>/work; give concurrent runs their own).
# Reports: $CTORCH_UPSTREAM_OUT (default <cache>/report): summary.txt, compile-errors.txt (the
#   tally of compiler errors), results.json, passing.txt, per-file gtest JSON and output.
# Exit: 0 when the run completed (the counts are a measurement); 1 when a test listed in
#   tests/upstream/expected_pass.txt did not pass; 2 when something could not be set up.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
start=$(date +%s)

version=1.13.1
orig=pytorch_${version}+dfsg.orig.tar.xz
orig_sha256=d0355588b8528566d477e6ebf1b4d9d036a6fd75711339f66b27472ce5879dc7  # Debian's .dsc
files=(tensor tensor_options tensor_indexing tensor_cuda tensor_options_cuda parallel
       autograd modules optim functional sequential modulelist moduledict ordered_dict nn_utils init serialize dataloader)
# CTORCH_UPSTREAM_FILES=modules,functional measures some of them (CI runs them all).
if [[ -n ${CTORCH_UPSTREAM_FILES:-} ]]; then IFS=, read -r -a files <<<"$CTORCH_UPSTREAM_FILES"; fi
cache=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/ctorch/upstream
out=${CTORCH_UPSTREAM_OUT:-$cache/report}
mkdir -p "$cache"

die() { echo "upstream-tests: $*" >&2; exit 2; }
command -v python3 >/dev/null || die "python3 is needed"

# deb-src entries derived from the machine's own Debian sources (one-line and deb822 files).
write_apt_sources() {  # <private apt dir>
  python3 - "$1" <<'PY'
import glob, re, sys
d = sys.argv[1]
one_line, stanzas = [], []
for f in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
    try:
        text = open(f).read()
    except OSError:
        continue
    for line in text.splitlines():
        m = re.match(r"\s*deb\s+(.*)$", line)
        if m and "debian" in m.group(1):
            one_line.append("deb-src " + m.group(1))
for f in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    for st in re.split(r"\n\s*\n", open(f).read()):
        fields = dict(re.findall(r"^([\w-]+):\s*(.*)$", st, re.M))
        if "deb" not in fields.get("Types", "").split() or "debian" not in fields.get("URIs", ""):
            continue
        if fields.get("Enabled", "yes").strip().lower() == "no":
            continue
        stanzas.append(re.sub(r"^Types:.*$", "Types: deb-src", st.strip(), flags=re.M))
open(f"{d}/sources.list", "w").write("".join(l + "\n" for l in one_line))
open(f"{d}/sources.list.d/debian-src.sources", "w").write("\n\n".join(stanzas) + "\n")
if not one_line and not stanzas:
    sys.exit("no Debian entry in /etc/apt/sources.list or /etc/apt/sources.list.d")
PY
}

mirror_urls() {  # the Debian mirrors named in the private source lists
  sed -n -E 's/^deb-src[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/p' "$1/sources.list"
  sed -n -E 's/^URIs:[[:space:]]*//p' "$1/sources.list.d/debian-src.sources" | tr ' ' '\n'
}

fetch_tarball() {
  local apt=$cache/apt dl=$cache/download
  rm -rf "$apt" "$dl"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d" "$dl"
  write_apt_sources "$apt" || die "could not derive deb-src entries from the machine's apt sources"
  local opts=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o "Dir::Etc::sourceparts=$apt/sources.list.d"
              -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "APT::Sandbox::User=root")
  echo "fetching $orig (apt-get source pytorch, private apt directory $apt)"
  if apt-get "${opts[@]}" update >"$cache/apt-update.log" 2>&1; then
    # The .debian.tar.xz may be missing from the mirror (apt-get then fails); the orig tarball counts.
    (cd "$dl" && apt-get "${opts[@]}" source --download-only pytorch >"$cache/apt-source.log" 2>&1) || true
  else
    echo "  apt-get update failed (see $cache/apt-update.log)"
  fi
  if [[ ! -f "$dl/$orig" ]]; then
    echo "  apt-get source gave no $orig (see $cache/apt-source.log); trying the mirror's pool directly"
    local url
    for url in $(mirror_urls "$apt"); do
      curl -fsSL --retry 2 -o "$dl/$orig" "${url%/}/pool/main/p/pytorch/${orig/+/%2B}" && break
      rm -f "$dl/$orig"
    done
  fi
  [[ -f "$dl/$orig" ]] || die "could not fetch $orig"
  echo "$orig_sha256  $dl/$orig" | sha256sum -c --quiet - || die "$orig: checksum differs from Debian's .dsc"
  mv "$dl/$orig" "$cache/$orig"
  rm -rf "$dl"
}

if [[ ! -f "$cache/$orig" ]] || ! echo "$orig_sha256  $cache/$orig" | sha256sum -c --quiet - 2>/dev/null; then
  fetch_tarball
fi

# Only the test files measured are extracted; PyTorch's support.h is replaced by tests/upstream/support.h.
src=$cache/pytorch-$version-test-cpp-api
members=()
for f in "${files[@]}"; do
  [[ -f "$src/$f.cpp" ]] || members+=("pytorch-$version/test/cpp/api/$f.cpp")
  # optim.cpp and init.cpp include their expected values as <test/cpp/api/<name>_baseline.h>
  if [[ $f == optim || $f == init ]] && [[ ! -f "$src/$f""_baseline.h" ]]; then
    members+=("pytorch-$version/test/cpp/api/$f""_baseline.h")
  fi
done
if [[ ${#members[@]} -gt 0 ]]; then
  mkdir -p "$src"
  tar -xJf "$cache/$orig" -C "$src" --strip-components=4 "${members[@]}" \
    || die "could not extract the test files from $orig"
fi

# The ctorch to test: the prefix given, or the build tree installed into a scratch prefix.
if [[ $# -ge 1 ]]; then
  prefix=$(realpath "$1")
else
  build=${CTORCH_BUILD_DIR:-build}
  if [[ ! -f "$build/CMakeCache.txt" ]]; then
    cmake -S . -B "$build" -DCTORCH_BUILD_TESTS=OFF -DCTORCH_BUILD_EXAMPLES=OFF >/dev/null
  fi
  echo "building $build"
  cmake --build "$build" -j"$(nproc)" >/dev/null
  prefix=$(mktemp -d)
  trap 'rm -rf "$prefix"' EXIT
  cmake --install "$build" --prefix "$prefix" >/dev/null
fi
[[ -f "$prefix/lib/cmake/ctorch/ctorchConfig.cmake" || -n $(find "$prefix" -name ctorchConfig.cmake -print -quit) ]] \
  || die "no ctorch package (ctorchConfig.cmake) under $prefix"

rc=0
python3 "$repo/tests/upstream/run_upstream.py" --upstream-dir "$src" --prefix "$prefix" \
  --work "${CTORCH_UPSTREAM_WORK:-$cache/work}" --out "$out" --files "$(IFS=,; echo "${files[*]}")" || rc=$?
echo "upstream-tests: reports in $out; the whole script took $(( $(date +%s) - start )) s"
exit "$rc"
