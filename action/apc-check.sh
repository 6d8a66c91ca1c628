#!/usr/bin/env bash
# The shell logic of action.yml (the apc-tools GitHub Action), kept here so that a test can run it
# with GITHUB_* variables set against a real repository. Inputs arrive as environment variables
# (never interpolated into the script): APC_PATHS, APC_ARGS (split at whitespace, never evaluated),
# APC_SARIF (the SARIF file to write), APC_WORKING_DIRECTORY, APC_FETCH ("true": fetch what the
# range needs), APC_PYTHON (default python3).
#
# What is scanned, by event:
#   pull_request, pull_request_target: merge-base(base, head)..head
#   push:          before..after; a new branch (all-zero before) from its merge base with the
#                  default branch; a branch deletion scans nothing
#   merge_group:   base_sha..head_sha
#   anything else, or no base to be found: the tree at HEAD (apc check without --range)
set -uo pipefail

PYTHON="${APC_PYTHON:-python3}"
SARIF="${APC_SARIF:-apc.sarif}"
ZERO=0000000000000000000000000000000000000000
EVENT="${GITHUB_EVENT_NAME:-}"
EVENT_FILE="${GITHUB_EVENT_PATH:-}"

if [[ -n "${APC_WORKING_DIRECTORY:-}" ]]; then
  cd -- "$APC_WORKING_DIRECTORY" || exit 2
fi

note() { printf '%s\n' "apc-action: $*" >&2; }

# event_field KEY.PATH: one string from the event payload ("" when absent)
event_field() {
  [[ -f "$EVENT_FILE" ]] || return 0
  "$PYTHON" - "$EVENT_FILE" "$1" <<'PY'
import json, sys
value = json.load(open(sys.argv[1], encoding="utf-8"))
for key in sys.argv[2].split("."):
    value = value.get(key) if isinstance(value, dict) else None
print(value if isinstance(value, str) else "")
PY
}

have_commit() { git cat-file -e "$1^{commit}" 2>/dev/null; }

# fetch_commits SHA...: make each commit present (a shallow checkout has only HEAD)
fetch_commits() {
  local sha missing=()
  for sha in "$@"; do have_commit "$sha" || missing+=("$sha"); done
  ((${#missing[@]})) || return 0
  [[ "${APC_FETCH:-true}" == "true" ]] || return 1
  git fetch --quiet --no-tags --depth=1 origin "${missing[@]}" >&2 || return 1
}

# merge_base A B: deepen a shallow clone step by step until git finds the merge base
merge_base() {
  local depth
  for depth in 50 200 1000; do
    git merge-base "$1" "$2" 2>/dev/null && return 0
    [[ "${APC_FETCH:-true}" == "true" && -f "$(git rev-parse --git-dir)/shallow" ]] || return 1
    git fetch --quiet --no-tags --deepen="$depth" origin "$1" "$2" >&2 || return 1
  done
  if [[ -f "$(git rev-parse --git-dir)/shallow" ]]; then
    git fetch --quiet --no-tags --unshallow origin >&2 || return 1
  fi
  git merge-base "$1" "$2" 2>/dev/null
}

# scan_range: prints BASE..HEAD for the event, or nothing for a scan of the tree at HEAD
scan_range() {
  local base head
  case "$EVENT" in
    pull_request | pull_request_target)
      base=$(event_field pull_request.base.sha)
      head=$(event_field pull_request.head.sha)
      ;;
    merge_group)
      base=$(event_field merge_group.base_sha)
      head=$(event_field merge_group.head_sha)
      ;;
    push)
      base=$(event_field before)
      head=$(event_field after)
      head=${head:-${GITHUB_SHA:-}}
      if [[ "$base" == "$ZERO" ]]; then
        local branch
        branch=$(event_field repository.default_branch)
        base=""
        if [[ -n "$branch" ]] && { have_commit "origin/$branch" ||
          git fetch --quiet --no-tags --depth=1 origin "$branch:refs/remotes/origin/$branch" >&2; }; then
          base=$(git rev-parse "origin/$branch" 2>/dev/null)
        fi
      fi
      ;;
    *) return 0 ;;
  esac
  [[ -n "$base" && -n "$head" ]] || return 0
  fetch_commits "$base" "$head" || { note "cannot fetch $base and $head: scanning HEAD"; return 0; }
  if [[ "$EVENT" != merge_group ]]; then
    base=$(merge_base "$base" "$head") || { note "no merge base: scanning HEAD"; return 0; }
  else
    merge_base "$base" "$head" >/dev/null || true  # the range needs the history between them
  fi
  [[ "$base" != "$head" ]] && printf '%s..%s\n' "$base" "$head"
}

main() {
  if [[ "$EVENT" == push && "$(event_field after)" == "$ZERO" ]]; then
    note "branch deleted: nothing to check"
    return 0
  fi
  local range report status
  range=$(scan_range)
  local -a paths=() args=()
  read -r -a paths <<<"${APC_PATHS:-}"
  read -r -a args <<<"${APC_ARGS:-}"
  [[ -n "$range" ]] && args=(--range "$range" "${args[@]}")
  report=$(mktemp)
  note "apc check ${args[*]} ${paths[*]}"
  apc check --no-inline-allow --format github --report-file "sarif:$SARIF" --report-file "json:$report" \
    "${args[@]}" -- "${paths[@]}"
  status=$?
  if [[ -s "$report" && -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
    "$PYTHON" -m apc_tools.hooks github-summary "$report" "$SARIF" "$range" >>"$GITHUB_STEP_SUMMARY"
  fi
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    { printf 'sarif-file=%s\n' "$SARIF"; printf 'range=%s\n' "$range"; printf 'exit-code=%s\n' "$status"; } >>"$GITHUB_OUTPUT"
  fi
  rm -f -- "$report"
  return "$status"
}

main
