# Sourced by checks that need Debian packages they may not find installed (not *.sh: .ci/run
# runs every *.sh as a check). `unpack_debian_packages DIR WHAT PACKAGE...` fetches the
# packages with `apt-get download` (no root) and unpacks them into DIR/root, saying what it
# fetches; when they cannot be downloaded it prints "$CHECK: skipped (…)" and exits the
# check with 0, as every check does when what it installs is unreachable.
unpack_debian_packages() {
    local dir=$1 what=$2
    shift 2
    echo "== fetching $what (apt-get download, $# packages)"
    rm -rf "$dir/root" "$dir/debs"
    mkdir -p "$dir/debs"
    if ! (cd "$dir/debs" && timeout 900 apt-get download "$@" > "$dir/download.log" 2>&1); then
        echo "$CHECK: skipped (the Debian packages could not be downloaded: $(tail -1 "$dir/download.log"))"
        rm -rf "$dir/debs" "$dir/root"
        exit 0
    fi
    local deb
    for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root"; done
    rm -rf "$dir/debs"
}
