# Sourced by the start-up benchmarks: builds aci unless ACI_BIN names a
# build (into $1), starts the fake model looping over reply file $2, and
# sets bin, base (the model's URL), work (a temp folder) and server; all
# are cleaned up on exit. FAKEMODEL_ARGS adds flags to the fake model's.
bin=${ACI_BIN:-}
if [ -z "$bin" ]; then
  bin=$1
  CGO_ENABLED=0 go build -ldflags="-s -w" -o "$bin" . # as the README's install line
fi
go build -o /tmp/aci-fakemodel ./bench/fakemodel
urlfile=$(mktemp)
/tmp/aci-fakemodel -loop ${FAKEMODEL_ARGS:-} -reply-file "$2" >"$urlfile" &
server=$!
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work" "$urlfile"' EXIT
for _ in $(seq 50); do [ -s "$urlfile" ] && break; sleep 0.1; done
base=$(head -1 "$urlfile")
