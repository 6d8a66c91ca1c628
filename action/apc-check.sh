#!/usr/bin/env bash
# The shell logic of action.yml (the apc-tools GitHub Action), kept here so that a test can run it
# with GITHUB_* variables set against a real repository. Inputs arrive as environment variables
# (never interpolated into the script): APC_PATHS, APC_ARGS (split at whitespace, never evaluated),
# APC_SARIF (the SARIF file to write; empty: $RUNNER_TEMP/apc-tools/apc.sarif, outside the
# workspace), APC_WORKING_DIRECTORY, APC_FETCH ("true": fetch what the range needs), APC_PYTHON
# (default python3).
#
# What is scanned, by event:
#   pull_request, pull_request_target: merge-base(base, head)..head
#   push:          merge-base(before, after)..after; a new branch (all-zero before) from its merge
#                  base with the default branch; a branch with no history in common with either
#                  (an orphan branch, a force push of unrelated history): every commit of after;
#                  a branch deletion scans nothing; a tag (ref refs/tags/NAME): the same for the
#                  commit it tags, ending at the tag, so its messages are read (a tag of a
#                  commit the default branch holds: the messages only); a tag of a tree or a
#                  blob: the tag and what it tags, scanned by `apc boundary` (nothing to validate)
#   merge_group:   base_sha..head_sha
#   anything else: the tree at HEAD
#
# The gate fails closed: the range is scanned only once every commit of it is in the clone with
# its parents (no commit of it on the shallow boundary, .git/shallow). The script deepens a
# shallow checkout until then (side branches included), and unshallows it as a last resort. It
# exits 2, saying why, when the range cannot be made whole (`fetch: false` on a shallow checkout,
# a fetch that fails), when a pull request or merge group has no merge base, when an event
# value is not a commit id, and when the event file is not one JSON object. Event values reach
# git only after they match SHA_RE, and every git call ends its options (--end-of-options, or
# --) before a revision.
set -uo pipefail

PYTHON="${APC_PYTHON:-python3}"
ZERO=0000000000000000000000000000000000000000
SHA_RE='^[0-9a-f]{40}([0-9a-f]{24})?$'
BRANCH_RE='^[A-Za-z0-9_][A-Za-z0-9._/-]*$'
EVENT="${GITHUB_EVENT_NAME:-}"
EVENT_FILE="${GITHUB_EVENT_PATH:-}"
DEPTHS=(50 200 1000 5000)

exec 3>&1 # the step's own stdout: workflow commands from inside command substitutions

if [[ -n "${APC_WORKING_DIRECTORY:-}" ]]; then
  cd -- "$APC_WORKING_DIRECTORY" || exit 2
fi

note() { printf '%s\n' "apc-action: $*" >&2; }
# refuse MESSAGE: the gate could not see what it was asked to judge: exit 2 (never a pass)
refuse() {
  printf '%s\n' "apc-action: error: $*" >&2
  local data="$*" # a workflow command's data: %, CR and LF spelled as GitHub decodes them
  data=${data//'%'/%25}
  data=${data//$'\r'/%0D}
  data=${data//$'\n'/%0A}
  printf '::error title=apc-tools could not run::%s\n' "$data" >&3
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    { printf 'sarif-file=\n'; printf 'range=\n'; printf 'exit-code=2\n'; } >>"$GITHUB_OUTPUT"
  fi
  exit 2
}

# event_field KEY.PATH: sets FIELD to one string from the event payload ("" when absent or not
# a string), exactly: a trailing newline is kept (a sentinel stops $(...) from stripping it),
# and a NUL, which no shell variable can hold, is spelled out. An event file that is not one
# JSON object (truncated, a byte-order mark, an array, a key given twice, nested past the
# parser's depth) exits 2 with the reason (apc_tools.hooks event-field), never a guess.
FIELD=""
event_field() {
  FIELD=""
  [[ -f "$EVENT_FILE" ]] || return 0
  local value status
  value=$("$PYTHON" -m apc_tools.hooks event-field "$EVENT_FILE" "$1")
  status=$?
  if ((status != 0)); then
    [[ $status == 2 && -n "$value" ]] || value="cannot read the event file $EVENT_FILE (exit $status)"
    refuse "$value"
  fi
  FIELD=${value%.}
}

# event_sha KEY.PATH: the commit id the event names at KEY.PATH; exit 2 when it is not one
event_sha() {
  local value
  event_field "$1"
  value=$FIELD
  [[ -n "$value" ]] || refuse "the $EVENT event has no $1 (event file: ${EVENT_FILE:-unset})"
  [[ "$value" =~ $SHA_RE ]] || refuse "the $EVENT event's $1 is not a commit id (40 or 64 lowercase hex digits): $(printf '%q' "$value")"
  printf '%s\n' "$value"
}

fetching() { [[ "${APC_FETCH:-true}" == "true" ]]; }
is_shallow() { [[ "$(git rev-parse --is-shallow-repository 2>/dev/null)" == "true" ]]; }
have_commit() { git cat-file -e --end-of-options "$1^{commit}" 2>/dev/null; }

# fetch_commits SHA...: make each commit present (a shallow checkout has only HEAD)
fetch_commits() {
  local sha missing=()
  for sha in "$@"; do have_commit "$sha" || missing+=("$sha"); done
  ((${#missing[@]})) || return 0
  fetching || refuse "commit ${missing[*]} is not in the checkout and the action's fetch input is \"false\": check out with \`fetch-depth: 0\` (actions/checkout), or let the action fetch"
  git fetch --quiet --no-tags --depth=1 --end-of-options origin "${missing[@]}" >&2 ||
    refuse "cannot fetch ${missing[*]} from origin"
  for sha in "${missing[@]}"; do
    have_commit "$sha" || refuse "commit $sha is not on origin"
  done
}

# cut REVS...: the commits of `git rev-list REVS` on the shallow boundary (their parents are
# missing), one per line; nothing in a complete clone
cut() {
  local shallow
  shallow=$(git rev-parse --git-path shallow)
  [[ -s "$shallow" ]] || return 0
  git rev-list --end-of-options "$@" -- | grep -Fx -f "$shallow"
}

# deepen SHA...: fetch more of the history below the shallow boundary, for the given commits;
# after the last depth, the whole history (--unshallow)
deepen() {
  local depth=$1
  shift
  if [[ "$depth" == all ]]; then
    git fetch --quiet --no-tags --unshallow --end-of-options origin "$@" >&2
  else
    git fetch --quiet --no-tags --deepen="$depth" --end-of-options origin "$@" >&2
  fi
}

# complete REVS -- SHA...: deepen until no commit of `rev-list REVS` is on the shallow boundary
complete() {
  local revs=() depth
  while [[ "$1" != -- ]]; do revs+=("$1"); shift; done
  shift
  for depth in "${DEPTHS[@]}" all; do
    [[ -n "$(cut "${revs[@]}")" ]] || return 0
    fetching || refuse "the checkout is shallow and ${revs[*]} reaches past it (commits whose parents were not fetched), and the action's fetch input is \"false\": check out with \`fetch-depth: 0\` (actions/checkout), or let the action fetch"
    deepen "$depth" "$@" || refuse "cannot fetch the history of ${revs[*]} from origin"
  done
  [[ -z "$(cut "${revs[@]}")" ]] || refuse "the history of ${revs[*]} is still cut after a full fetch (is origin itself a shallow clone?)"
}

# merge_base A B: their merge base, deepening a shallow clone until git finds it and the range
# from it to B is whole; nothing when the complete histories share no commit. Call it as
# `x=$(merge_base A B) || exit 2`: it exits 2 when it cannot fetch what it needs.
merge_base() {
  local depth base
  for depth in "${DEPTHS[@]}" all; do
    if base=$(git merge-base --end-of-options "$1" "$2" 2>/dev/null); then
      complete "$base..$2" -- "$1" "$2"
      git merge-base --end-of-options "$1" "$2" # the best one, now that the range is whole
      return 0
    fi
    is_shallow || return 0
    fetching || refuse "the checkout is shallow and holds no merge base of $1 and $2, and the action's fetch input is \"false\": check out with \`fetch-depth: 0\` (actions/checkout), or let the action fetch"
    deepen "$depth" "$1" "$2" || refuse "cannot fetch the history of $1 and $2 from origin"
  done
  git merge-base --end-of-options "$1" "$2" 2>/dev/null || true
}

# empty_root: a commit with no parent and an empty tree, the base of a range that holds every
# commit of its head (written to this clone's object store only)
empty_root() {
  local tree
  tree=$(git hash-object -t tree -w --stdin </dev/null) || return 1
  printf 'tree %s\nauthor apc-tools <apc-tools@invalid> 0 +0000\ncommitter apc-tools <apc-tools@invalid> 0 +0000\n\napc-tools: the empty base of a whole history\n' "$tree" |
    git hash-object -t commit -w --stdin
}

# whole_history HEAD WHY [END]: prints EMPTY..END (END: HEAD, or the tag pushed) and the
# summary's scope once every commit of HEAD is present
whole_history() {
  local root
  note "$1: $2: scanning every commit of it"
  complete "$1" -- "$1"
  root=$(empty_root) || refuse "cannot write the empty base commit"
  printf '%s..%s\n%s\n' "$root" "${3:-$1}" "every commit of \`$1\` (its whole history: $2)"
}

# default_tip: origin's default branch tip for a new branch, or nothing
default_tip() {
  local branch
  event_field repository.default_branch
  branch=$FIELD
  [[ -n "$branch" ]] || return 0
  [[ "$branch" =~ $BRANCH_RE ]] && git check-ref-format --branch "$branch" >/dev/null 2>&1 ||
    refuse "the push event's repository.default_branch is not a branch name: $(printf '%q' "$branch")"
  if ! git rev-parse --verify -q --end-of-options "refs/remotes/origin/$branch^{commit}" >/dev/null; then
    fetching || refuse "the default branch $branch is not in the checkout and the action's fetch input is \"false\": check out with \`fetch-depth: 0\` (actions/checkout)"
    git fetch --quiet --no-tags --depth=1 --end-of-options origin \
      "+refs/heads/$branch:refs/remotes/origin/$branch" >&2 ||
      refuse "cannot fetch the default branch $branch from origin"
  fi
  git rev-parse --verify -q --end-of-options "refs/remotes/origin/$branch^{commit}"
}

# scan_range: prints BASE..HEAD for the event (and, on a second line, how the step summary names
# it when that is not plain BASE..HEAD; on a third, `boundary` when there is nothing to validate,
# a tag of a tree or a blob), or nothing for a scan of the tree at HEAD
scan_range() {
  local base head tip tag=""
  case "$EVENT" in
    pull_request | pull_request_target)
      base=$(event_sha pull_request.base.sha) || exit 2
      head=$(event_sha pull_request.head.sha) || exit 2
      fetch_commits "$base" "$head"
      tip=$(merge_base "$base" "$head") || exit 2
      [[ -n "$tip" ]] || refuse "pull request base $base and head $head share no history (no merge base): nothing to compare the head with"
      base=$tip
      ;;
    merge_group)
      base=$(event_sha merge_group.base_sha) || exit 2
      head=$(event_sha merge_group.head_sha) || exit 2
      fetch_commits "$base" "$head"
      tip=$(merge_base "$base" "$head") || exit 2
      [[ -n "$tip" ]] || refuse "merge group base $base and head $head share no history (no merge base)"
      complete "$base..$head" -- "$base" "$head"
      ;;
    push)
      head=$(event_sha after) || exit 2
      base=$(event_sha before) || exit 2
      event_field ref
      if [[ "$FIELD" == refs/tags/* ]]; then
        tag=$(pushed_tag "$FIELD" "$head") || exit 2
        head=$(git rev-parse --verify -q --end-of-options "$tag^{}") || refuse "cannot peel $FIELD"
        if [[ "$(git cat-file -t --end-of-options "$head")" != commit ]]; then
          # a tag of a tree or a blob: no commits; the tag and what it tags, from the default
          # branch (its policy), or from an empty root when the event names none
          base=$(default_tip) || exit 2
          [[ -n "$base" ]] || base=$(empty_root) || refuse "cannot write the empty base commit"
          printf '%s..%s\n%s\nboundary\n' "$base" "$tag" "the tag \`${FIELD#refs/tags/}\` (its messages and the $(git cat-file -t --end-of-options "$head") it tags)"
          return 0
        fi
      fi
      fetch_commits "$head"
      if [[ "$base" == "$ZERO" ]]; then
        local branch
        event_field repository.default_branch
        branch=$FIELD
        event_field ref
        if [[ -n "$branch" && "$FIELD" == "refs/heads/$branch" ]]; then
          whole_history "$head" "the default branch is created" "$tag"
          return 0
        fi
        base=$(default_tip) || exit 2
        [[ -n "$base" ]] || {
          whole_history "$head" "a new branch, and the event names no default branch" "$tag"
          return 0
        }
      fi
      fetch_commits "$base"
      tip=$(merge_base "$base" "$head") || exit 2
      if [[ -z "$tip" ]]; then
        whole_history "$head" "it shares no history with $base" "$tag"
        return 0
      fi
      base=$tip
      ;;
    *) return 0 ;;
  esac
  if [[ -n "$tag" ]]; then # the range ends at the tag: its messages are scanned too
    printf '%s..%s\n' "$base" "$tag"
    return 0
  fi
  [[ "$base" != "$head" ]] || return 0
  printf '%s..%s\n' "$base" "$head"
}

# pushed_tag REF AFTER: the object refs/tags/NAME names in the clone (fetched from origin when
# the checkout lacks it), which must be the event's `after` or what that tag peels to
pushed_tag() {
  local ref=$1 after=$2 tag peeled
  [[ "${ref#refs/tags/}" =~ $BRANCH_RE ]] && git check-ref-format "$ref" >/dev/null 2>&1 ||
    refuse "the push event's ref is not a tag name: $(printf '%q' "$ref")"
  if ! tag=$(git rev-parse --verify -q --end-of-options "$ref"); then
    fetching || refuse "the tag $ref is not in the checkout and the action's fetch input is \"false\": check out with \`fetch-depth: 0\` (actions/checkout), or let the action fetch"
    git fetch --quiet --no-tags --depth=1 --end-of-options origin "+$ref:$ref" >&2 ||
      refuse "cannot fetch the tag $ref from origin"
    tag=$(git rev-parse --verify -q --end-of-options "$ref") || refuse "origin has no tag $ref"
  fi
  peeled=$(git rev-parse --verify -q --end-of-options "$tag^{}") || refuse "cannot peel $ref"
  [[ "$after" == "$tag" || "$after" == "$peeled" ]] ||
    refuse "the push event's after ($after) is neither $ref ($tag) nor what it tags ($peeled) in origin"
  printf '%s\n' "$tag"
}

# sarif_path: where the SARIF goes; a path inside the work tree is git-ignored
# (.git/info/exclude), so no later step of the job can commit it
sarif_path() {
  local sarif="${APC_SARIF:-}" top rel exclude
  if [[ -z "$sarif" ]]; then
    local dir="${RUNNER_TEMP:-}"
    [[ -n "$dir" ]] || dir=$(mktemp -d)
    mkdir -p -- "$dir/apc-tools" || refuse "cannot create $dir/apc-tools"
    printf '%s\n' "$dir/apc-tools/apc.sarif"
    return 0
  fi
  mkdir -p -- "$(dirname -- "$sarif")" || refuse "cannot create the folder of $sarif"
  top=$(git rev-parse --show-toplevel 2>/dev/null) || { printf '%s\n' "$sarif"; return 0; }
  rel=$("$PYTHON" -c 'import os, sys
path, top = (os.path.realpath(p) for p in sys.argv[1:])
rel = os.path.relpath(path, top)
print("" if rel == os.curdir or rel.startswith(os.pardir + os.sep) else rel.replace(os.sep, "/"))' "$sarif" "$top")
  if [[ -n "$rel" ]]; then
    exclude=$(git rev-parse --git-path info/exclude)
    mkdir -p -- "$(dirname -- "$exclude")"
    printf '/%s\n' "$(printf '%s' "$rel" | sed 's/[][*?\\!# ]/\\&/g')" >>"$exclude"
  fi
  printf '%s\n' "$sarif"
}

main() {
  event_field after
  if [[ "$EVENT" == push && "$FIELD" == "$ZERO" ]]; then
    note "branch deleted: nothing to check"
    return 0
  fi
  local planned range="" scope="" command="" report status sarif
  planned=$(scan_range) || exit 2
  { IFS= read -r range; IFS= read -r scope; IFS= read -r command; } <<<"$planned"
  [[ "$command" == boundary ]] || command=check
  sarif=$(sarif_path) || exit 2
  local -a paths=() args=()
  read -r -a paths <<<"${APC_PATHS:-}"
  read -r -a args <<<"${APC_ARGS:-}"
  [[ -n "$range" ]] && args=(--range "$range" "${args[@]}")
  report=$(mktemp)
  note "apc $command ${args[*]} ${paths[*]}"
  apc "$command" --no-inline-allow --format github --report-file "sarif:$sarif" --report-file "json:$report" \
    "${args[@]}" -- "${paths[@]}"
  status=$?
  if [[ -s "$report" && -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
    "$PYTHON" -m apc_tools.hooks github-summary "$report" "$sarif" "$range" "$scope" >>"$GITHUB_STEP_SUMMARY"
  fi
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    { printf 'sarif-file=%s\n' "$sarif"; printf 'range=%s\n' "$range"; printf 'exit-code=%s\n' "$status"; } >>"$GITHUB_OUTPUT"
  fi
  rm -f -- "$report"
  return "$status"
}

main
