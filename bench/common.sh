# Shared set-up of the sandbox benches (sourced, not run): build wicket, or, as root with
# BENCH_USER set, build and then run the calling script again as that user; then a throwaway
# work folder. Sets `repo`, `bin` and `work` (removed on exit).
#
#   . "$(dirname "$0")/common.sh" "$0" "$@"
cd "$(dirname "$1")/.."
repo="$PWD"
if [ -n "${BENCH_USER:-}" ] && [ "$(id -u)" = 0 ]; then
  # Most people run wicket as themselves: bubblewrap and the fallback then make a user
  # namespace, which root does not need. Build as root, then measure as that user.
  cargo build --release -q -p wicket
  mkdir -p target/bench/user && chown "$BENCH_USER" target/bench/user
  home="$(getent passwd "$BENCH_USER" | cut -d: -f6)"
  script="$repo/bench/$(basename "$1")"
  shift
  exec setpriv --reuid="$BENCH_USER" --regid="$BENCH_USER" --init-groups \
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" USER="$BENCH_USER" \
    BENCH_BUILT=1 BENCH_DIR="$repo/target/bench/user" bash "$script" "$@"
fi
[ -n "${BENCH_BUILT:-}" ] || cargo build --release -q -p wicket
bin="$PWD/target/release/wicket"
# Not in /tmp: the home must not sit inside a writable temp folder, as it never does for real.
bench_dir="${BENCH_DIR:-$PWD/target/bench}"
mkdir -p "$bench_dir"
work="$(mktemp -d -p "$bench_dir")"
trap 'rm -rf "$work"' EXIT
