#!/usr/bin/env bash
# Installs the Debian packages the build needs, if any are missing.
#   scripts/deps.sh [--docs]   --docs: also Doxygen, for the API reference
#                              (`cmake --build build --target docs`; the test
#                              command installs it to check the headers)
set -euo pipefail
# UCX (transport) and Open MPI (mpirun, for the multi-process tests); iproute2
# (`ip netns`, for the two-host test); pkg-config and dpkg-dev (the install
# tests: a pkg-config consumer, and `cpack -G DEB`, which runs dpkg-shlibdeps);
# clang and its runtime libraries (libFuzzer, for fuzz/).
pkgs=(cmake make g++ libboost-context-dev libboost-dev librapidcheck-dev libgtest-dev
  libucx-dev ucx-utils libopenmpi-dev openmpi-bin iproute2 pkg-config dpkg-dev clang
  libclang-rt-14-dev python3)
[ "${1:-}" = "--docs" ] && pkgs+=(doxygen)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
