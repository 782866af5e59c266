#!/usr/bin/env bash
# The shell part of the GitHub Action in action.yml (docs/src/ci.md, "The GitHub
# Action"). Each of the action's shell steps runs one command of this script:
#
#   install  puts the elicit-check of the action's own version on PATH,
#            unless it is there already or INPUT_INSTALL is false: the
#            release archive of this runner's platform, downloaded from
#            INPUT_RELEASE_URL/vVERSION/ and checked against its SHA-256 sum
#            (a wrong sum fails the step); only when no such release exists
#            (not found, or no prebuilt binary for the platform) it builds
#            from the action's checkout ($GITHUB_ACTION_PATH) with `cargo
#            install --locked --path`.
#   check    runs `elicit-check check` on the inputs, writes `exit-code` and
#            `sarif` (the report's absolute path, empty when none was written)
#            to $GITHUB_OUTPUT, and succeeds whatever the check said, so that
#            the SARIF can be uploaded before the job fails.
#   verdict  exits with the check's code (EXIT_CODE), saying what it means
#            (docs/src/exit-codes.md): 0 every property holds, 1 a property
#            fails, 2 the check could not be done.
#
# The inputs come as environment variables (INPUT_CONFIG, INPUT_BASELINE,
# INPUT_SARIF, INPUT_ARGS, INPUT_WORKING_DIRECTORY, INPUT_INSTALL,
# INPUT_RELEASE_URL), set in each
# step's `env:` and never written into a script's text, as GitHub's security
# hardening guide for Actions asks of untrusted input ("use an intermediate
# environment variable"): a value is data, whatever characters it holds.
# INPUT_ARGS is split into words as a shell splits them (quotes and
# backslashes), by xargs: nothing in it is expanded or run.
#
# Run by tests/action/mod.rs with a fake GitHub environment.
set -euo pipefail
unset CDPATH

# The message of a failed step, as a GitHub workflow command (an annotation).
error() {
    printf '::error title=elicit-check::%s\n' "$1"
}

# `name=value` for a later step (GitHub's GITHUB_OUTPUT file). A value holding a
# line break would start an output of its own: refused.
output() {
    if [[ $2 == *$'\n'* ]]; then
        error "the output $1 would hold a line break; refused"
        return 1
    fi
    printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
}

# The version of the checkout's crate: the first `version = "…"` of Cargo.toml,
# the [package]'s.
checkout_version() {
    sed -n 's/^version = "\([^"]*\)"$/\1/p' "$1/Cargo.toml" | sed -n 1p
}

# The Rust target of this machine's release archive (release.yml's matrix),
# empty when none is built for it.
release_target() {
    case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo x86_64-unknown-linux-gnu ;;
    Linux-aarch64 | Linux-arm64) echo aarch64-unknown-linux-gnu ;;
    Darwin-x86_64) echo x86_64-apple-darwin ;;
    Darwin-arm64) echo aarch64-apple-darwin ;;
    esac
}

# The SHA-256 of a file, in hex.
sha256() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        shasum -a 256 "$1" | cut -d' ' -f1
    fi
}

# `curl` of URL into FILE: 0 fetched, 1 not found (HTTP 404, or a file: URL
# naming no file), 2 any other failure (said).
fetch() {
    local url=$1 file=$2 code=0 status
    status=$(curl --silent --show-error --location --retry 2 --output "$file" --write-out '%{http_code}' -- "$url") || code=$?
    if [[ $code == 0 && ($status == 200 || $status == 000) ]]; then
        return 0
    fi
    if [[ $status == 404 || $code == 37 ]]; then
        return 1
    fi
    error "cannot download $url (curl exit $code, HTTP status $status)"
    return 2
}

# Downloads the release archive of VERSION for this machine, checks its sum
# and unpacks it: sets DOWNLOADED to the folder holding the binary, or to
# nothing when no such release exists (the caller builds from source); fails
# (said) on a download error or a wrong sum.
download() {
    DOWNLOADED=""
    local version=$1 base=${INPUT_RELEASE_URL:-https://github.com/elicit-check/elicit-check/releases/download}
    local target
    target=$(release_target)
    if [[ -z $target ]]; then
        echo "no prebuilt elicit-check for $(uname -s) $(uname -m): building it"
        return 0
    fi
    local name="elicit-check-v$version-$target" folder
    folder=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/elicit-check.XXXXXX")
    local url="${base%/}/v$version/$name.tar.gz" got=0
    fetch "$url.sha256" "$folder/$name.tar.gz.sha256" || got=$?
    if [[ $got == 1 ]]; then
        echo "no release v$version of elicit-check for $target at $base: building it"
        return 0
    fi
    [[ $got == 0 ]] || return 1
    fetch "$url" "$folder/$name.tar.gz" || {
        error "the release v$version has a sum but no archive for $target ($url)"
        return 1
    }
    local want have
    want=$(cut -d' ' -f1 <"$folder/$name.tar.gz.sha256")
    have=$(sha256 "$folder/$name.tar.gz")
    if [[ $want != "$have" ]]; then
        error "$name.tar.gz does not match its SHA-256 sum (the .sha256 says $want, the archive is $have): not installed"
        return 1
    fi
    tar -xzf "$folder/$name.tar.gz" -C "$folder"
    echo "elicit-check $version: downloaded $url (SHA-256 $have)"
    DOWNLOADED="$folder/$name"
}

install() {
    local action_path=${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set: run this script as a step of action.yml}
    case ${INPUT_INSTALL:-true} in
    true) ;;
    false)
        echo "install is false: using the elicit-check on PATH"
        return 0
        ;;
    *)
        error "install must be true or false, not '$INPUT_INSTALL'"
        return 2
        ;;
    esac
    local version found
    version=$(checkout_version "$action_path")
    if found=$(elicit-check --version 2>/dev/null) && [[ $found == "elicit-check $version" ]]; then
        echo "elicit-check $version is already on PATH ($(command -v elicit-check)): not installing"
        return 0
    fi
    download "$version" || return 2
    if [[ -n $DOWNLOADED ]]; then
        # First on the later steps' PATH (GITHUB_PATH).
        echo "$DOWNLOADED" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
        return 0
    fi
    echo "installing elicit-check $version from $action_path"
    cargo install --locked --path "$action_path"
    # cargo installs into CARGO_INSTALL_ROOT/bin, else CARGO_HOME/bin. A folder
    # in GITHUB_PATH comes first on the later steps' PATH: they run this
    # elicit-check, not another version found earlier on PATH.
    echo "${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
}

# The check step could not run elicit-check: say why, and hand exit code 2 (the
# check could not be done) to the verdict step.
give_up() {
    error "$1"
    output exit-code 2
    output sarif ""
    exit 0
}

check() {
    : "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: run this script as a step of action.yml}"
    local config=${INPUT_CONFIG:-elicit-check.toml}
    local sarif=${INPUT_SARIF:-elicit-check.sarif}
    local directory=${INPUT_WORKING_DIRECTORY:-.}
    if [[ $sarif == *$'\n'* ]]; then
        give_up "the sarif path holds a line break; refused"
    fi
    cd -- "$directory" 2>/dev/null || give_up "cannot enter the working directory '$directory'"
    command -v elicit-check >/dev/null ||
        give_up "elicit-check is not on PATH (with install: false, install it in an earlier step)"

    local command=(elicit-check check --config "$config" --sarif "$sarif")
    if [[ -n ${INPUT_BASELINE:-} ]]; then
        command+=(--baseline "$INPUT_BASELINE")
    fi
    if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
        command+=(--summary "$GITHUB_STEP_SUMMARY")
    fi
    local args=${INPUT_ARGS:-}
    if [[ -n ${args//[[:space:]]/} ]]; then
        local words failure word
        words=$(mktemp)
        failure=$(mktemp)
        if ! printf '%s' "$args" | xargs printf '%s\0' >"$words" 2>"$failure"; then
            local why
            why=$(cat "$failure")
            rm -f -- "$words" "$failure"
            give_up "args cannot be split into words: $why"
        fi
        while IFS= read -r -d '' word; do
            command+=("$word")
        done <"$words"
        rm -f -- "$words" "$failure"
    fi

    # This run's report or none: never an earlier run's left at the same path.
    rm -f -- "$sarif"
    local status=0
    "${command[@]}" || status=$?
    local absolute=$sarif
    if [[ $sarif != /* ]]; then
        absolute=$PWD/$sarif
    fi
    output exit-code "$status"
    if [[ -f $sarif ]]; then
        output sarif "$absolute"
    else
        output sarif ""
    fi
}

verdict() {
    local code=${EXIT_CODE:-}
    case $code in
    0)
        echo "elicit-check: every property holds"
        ;;
    1)
        error "a property fails (exit code 1): the server acted on an answer it should not have; the job summary and the code scanning alerts say which property, the answer and how to reproduce it"
        exit 1
        ;;
    2)
        error "the check could not be done (exit code 2): the server did not start, the tool is not listed or sent no form, or the options or config are wrong; the check step's log says which"
        exit 2
        ;;
    '')
        error "the check step gave no exit code: it did not run to its end"
        exit 2
        ;;
    *[!0-9]*)
        error "the check step gave no exit code but '$code'"
        exit 2
        ;;
    *)
        error "elicit-check ended with exit code $code, neither 0, 1 nor 2: it was stopped or crashed; the check step's log may say why"
        # A process's exit code is 1 to 255; anything else still fails.
        if ((${#code} <= 3 && 10#$code >= 1 && 10#$code <= 255)); then
            exit $((10#$code))
        fi
        exit 2
        ;;
    esac
}

case ${1:-} in
install) install ;;
check) check ;;
verdict) verdict ;;
*)
    echo "usage: $0 install|check|verdict" >&2
    exit 2
    ;;
esac
