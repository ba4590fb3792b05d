#!/usr/bin/env bash
# The install as a user gets it (tools/setup.sh test runs this last): `cmake --install` of a build
# into an empty prefix, then, with the build tree moved out of the way (put back on exit) and
# LD_LIBRARY_PATH unset:
#   - the library's SONAME, `sgai --version` against the installed version header;
#   - no installed file names the source or the build tree;
#   - the installed headers: no protobuf, nlohmann, CLI11 or yaml-cpp include, and each compiles
#     alone in its own translation unit;
#   - `sgai run` (the default experiment) then `sgai batch plot` on its output, from an empty folder;
#   - the examples project (examples/cpp) configured with CMAKE_PREFIX_PATH as its only hint,
#     built, every example run and its output compared with the expected one; one example built
#     with pkg-config alone (PKG_CONFIG_PATH pointing into the prefix).
# Usage: tests/install/check.sh [build dir]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
work=$(mktemp -d)
prefix=$work/prefix
hidden=$build.hidden-by-install-check
fail() {
  echo "install check: $*" >&2
  exit 1
}
cleanup() {
  [ -d "$hidden" ] && mv "$hidden" "$build"
  rm -rf "$work"
}
trap cleanup EXIT
unset LD_LIBRARY_PATH

cmake --install "$build" --prefix "$prefix" >"$work/install.log" || {
  cat "$work/install.log" >&2
  fail "cmake --install failed"
}
[ ! -e "$hidden" ] || fail "$hidden is in the way"
mv "$build" "$hidden"

# the library and the version
version=$(sed -n 's/^#define sgai_VERSION "\(.*\)"$/\1/p' "$prefix/include/sgai/version.hpp")
[ -n "$version" ] || fail "no sgai_VERSION in include/sgai/version.hpp"
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
if [ "$major" = 0 ]; then soname=libsgai.so.0.$minor; else soname=libsgai.so.$major; fi
got=$(objdump -p "$prefix/lib/$soname" | awk '$1 == "SONAME" { print $2 }')
[ "$got" = "$soname" ] || fail "the library's SONAME is '$got', not $soname"
got=$("$prefix/bin/sgai" --version)
[ "$got" = "sgai $version" ] || fail "sgai --version printed '$got', not 'sgai $version'"
echo "library $soname, sgai --version: $got"

# nothing names the source or build tree (the build tree is inside the source tree here)
if grep -rlF -e "$root" -e "$build" "$prefix" >"$work/named"; then
  sed 's/^/  /' "$work/named" >&2
  fail "installed files name the source or build tree ($root, $build)"
fi
echo "no installed file names $root or $build"

# the headers
headers=$(cd "$prefix/include" && find sgai -name '*.hpp' | sort)
[ -n "$headers" ] || fail "no headers under include/sgai"
if grep -nE '#include *[<"](nlohmann/|google/protobuf|CLI/|yaml-cpp/)|\.pb\.h' $(printf "$prefix/include/%s\n" $headers); then
  fail "installed headers include protobuf, nlohmann, CLI11 or yaml-cpp"
fi
simgrid_cflags=$(pkg-config --cflags simgrid)
printf '%s\n' $headers | xargs -P "$jobs" -I{} sh -c \
  'printf "#include <%s>\n" "$1" | g++ -std=c++20 -fsyntax-only -Wall -Werror -I"$2/include" -I"$2/include/sgai" $3 -x c++ - 2>"$4/$(echo "$1" | tr / _).err" ||
   { echo "install check: $1 does not compile alone:" >&2; head -5 "$4/$(echo "$1" | tr / _).err" >&2; exit 255; }' \
  _ {} "$prefix" "$simgrid_cflags" "$work" || fail "a header does not compile alone"
echo "$(printf '%s\n' $headers | wc -l) installed headers, each compiles alone"

# the default experiment and its plot, from an empty folder
mkdir "$work/empty"
(cd "$work/empty" && "$prefix/bin/sgai" run >"$work/run.log" 2>&1) || {
  tail -5 "$work/run.log" >&2
  fail "sgai run failed"
}
(cd "$work/empty" && "$prefix/bin/sgai" batch plot results/quickstart >"$work/plot.log" 2>&1) || {
  tail -5 "$work/plot.log" >&2
  fail "sgai batch plot failed"
}
ls "$work/empty/results/quickstart/"*.png >/dev/null 2>&1 || fail "sgai batch plot wrote no PNG"
echo "sgai run and sgai batch plot from an empty folder: $(ls "$work/empty/results/quickstart" | wc -l) files"

# the examples against the install alone
examples=$root/examples/cpp
if [ -d "$examples" ]; then
  cmake -S "$examples" -B "$work/examples" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$work/ex.log" 2>&1 || {
    tail -20 "$work/ex.log" >&2
    fail "the examples project does not configure against the install"
  }
  cmake --build "$work/examples" -j "$jobs" >>"$work/ex.log" 2>&1 || {
    tail -20 "$work/ex.log" >&2
    fail "the examples do not build against the install"
  }
  for expected in "$examples"/*/expected.txt; do
    dir=$(dirname "$expected")
    name=$(basename "$dir")
    (cd "$dir" && bash ./run.sh "$work/examples/$name" "$prefix" >"$work/$name.out" 2>"$work/$name.err") || {
      tail -5 "$work/$name.err" >&2
      fail "example $name failed"
    }
    diff -u "$expected" "$work/$name.out" >&2 || fail "example $name: output differs from $expected"
    echo "example $name: output as expected"
  done
  # one example with pkg-config alone
  first=$(ls -d "$examples"/*/ | head -1)
  name=$(basename "$first")
  PKG_CONFIG_PATH=$prefix/lib/pkgconfig g++ -O1 -o "$work/$name.pc" "$first"/*.cpp \
    $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs sgai) || fail "example $name does not build with pkg-config"
  (cd "$first" && bash ./run.sh "$work/$name.pc" "$prefix" >"$work/$name.pc.out" 2>/dev/null) || fail "example $name (pkg-config) failed"
  diff -u "$first/expected.txt" "$work/$name.pc.out" >&2 || fail "example $name (pkg-config): output differs"
  echo "example $name built with pkg-config alone: output as expected"
fi

# a program with Chakra's own generated classes (package ChakraProtoMsg, et_def.proto, a layout of
# its own) beside libsgai.so: sgai's classes are its own, so both read the same trace
if command -v protoc >/dev/null; then
  mkdir -p "$work/chakra_own"
  cat >"$work/chakra_own/et_def.proto" <<'PROTO'
syntax = "proto3";
package ChakraProtoMsg;
message GlobalMetadata { string version = 1; }
message Node { uint64 id = 1; string name = 2; }
PROTO
  cat >"$work/chakra_own/main.cpp" <<'CPP'
#include "et_def.pb.h"
#include "chakra/et_io.hpp"
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <fcntl.h>
#include <iostream>
#include <unistd.h>
int main(int argc, char** argv)
{
  // the program's own reading of the first node with its own classes
  int fd = open(argv[1], O_RDONLY);
  google::protobuf::io::FileInputStream file(fd);
  google::protobuf::io::CodedInputStream in(&file);
  uint32_t size = 0;
  ChakraProtoMsg::GlobalMetadata meta;
  ChakraProtoMsg::Node node;
  auto next = [&](google::protobuf::Message& m) {
    if (not in.ReadVarint32(&size))
      return false;
    auto limit = in.PushLimit(static_cast<int>(size));
    bool ok    = m.ParseFromCodedStream(&in);
    in.PopLimit(limit);
    return ok;
  };
  if (not next(meta) || not next(node))
    return 1;
  close(fd);
  auto trace = sgai::chakra::read_trace(argv[1]); // sgai's, with sgai's classes
  std::cout << "first node " << node.id() << " " << node.name() << "; sgai reads " << trace.nodes.size() << " nodes, first "
            << trace.nodes.front().id << " " << trace.nodes.front().name << "\n";
  return node.id() == trace.nodes.front().id && node.name() == trace.nodes.front().name ? 0 : 1;
}
CPP
  (cd "$work/chakra_own" && protoc --cpp_out=. et_def.proto) || fail "protoc"
  g++ -std=c++20 -O1 -I"$work/chakra_own" -o "$work/chakra_own/run" "$work/chakra_own/main.cpp" \
    "$work/chakra_own/et_def.pb.cc" $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs sgai) -lprotobuf ||
    fail "a program with Chakra's own protobuf classes does not build beside libsgai"
  out=$("$work/chakra_own/run" "$root/workloads/chakra/gpt-dp8/gpt.0.et") ||
    fail "a program with Chakra's own protobuf classes fails beside libsgai: $out"
  echo "Chakra's own protobuf classes beside libsgai.so: $out"
fi
echo "install check passed"
