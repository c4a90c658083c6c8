#!/usr/bin/env bash
# Makes a small base image from this machine's own files, for tests where
# no image registry can be reached: a static busybox for the shell and
# its tools, and bwrap with the libraries it links. Usage: testbase.sh NAME
set -euo pipefail
name=${1:?image name}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
busybox=$(command -v busybox || true)
[ -n "$busybox" ] || { echo "testbase.sh: busybox is not installed (apt-get install busybox-static)" >&2; exit 1; }
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' || ldd "$busybox" 2>&1 | grep -q 'not a dynamic' ||
  { echo "testbase.sh: $busybox is not static (apt-get install busybox-static)" >&2; exit 1; }
mkdir -p "$root"/{bin,usr/bin,etc,tmp,proc,sys,dev,home,root,var/tmp}
chmod 1777 "$root/tmp" "$root/var/tmp"
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
  [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
# bash (the model's commands run in bash -c) and bwrap, with what they
# link, at the same paths.
for prog in bash bwrap; do
  path=$(command -v "$prog")
  mkdir -p "$root$(dirname "$path")"
  rm -f "$root$path"
  cp -L "$path" "$root$path"
  for lib in $(ldd "$path" | grep -o '/[^ ]*'); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
done
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"
tar -C "$root" -c . | podman import - "$name" >/dev/null
