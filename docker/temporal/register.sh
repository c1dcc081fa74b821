#!/bin/sh
# Waits for the Temporal frontend, creates Relaybox's namespace if it is missing and registers the
# custom search attributes Relaybox sets on every workflow (RelaySearchAttributes.java).
# Idempotent: an existing namespace or search attribute is left as it is.
set -eu

: "${TEMPORAL_ADDRESS:=temporal:7233}"
: "${TEMPORAL_NAMESPACE:=default}"
: "${TEMPORAL_NAMESPACE_RETENTION:=72h}"
: "${WAIT_ATTEMPTS:=60}"
: "${WAIT_SECONDS:=2}"

address=$TEMPORAL_ADDRESS
namespace=$TEMPORAL_NAMESPACE

wait_for_frontend() {
  attempt=1
  while :; do
    status=$(temporal operator cluster health --address "$address" 2>&1) || true
    case $status in
      *NOT_SERVING*) ;;
      *SERVING*) echo "register: Temporal frontend at $address is serving"; return 0 ;;
    esac
    if [ "$attempt" -ge "$WAIT_ATTEMPTS" ]; then
      echo "register: Temporal frontend at $address not serving after $attempt attempts: $status" >&2
      exit 1
    fi
    attempt=$((attempt + 1))
    sleep "$WAIT_SECONDS"
  done
}

namespace_exists() {
  temporal operator namespace describe --namespace "$namespace" --address "$address" >/dev/null 2>&1
}

ensure_namespace() {
  if namespace_exists; then
    echo "register: namespace $namespace exists"
    return 0
  fi
  if ! output=$(temporal operator namespace create --namespace "$namespace" \
      --retention "$TEMPORAL_NAMESPACE_RETENTION" --address "$address" 2>&1); then
    case $output in
      *"already exists"*|*AlreadyExists*) ;;
      *) echo "register: cannot create namespace $namespace: $output" >&2; exit 1 ;;
    esac
  fi
  echo "register: namespace $namespace created"
}

# A namespace created a moment ago may not be visible to every frontend yet: retry, bounded.
register_search_attribute() {
  name=$1
  type=$2
  attempt=1
  while :; do
    if output=$(temporal operator search-attribute create --namespace "$namespace" \
        --name "$name" --type "$type" --address "$address" 2>&1); then
      echo "register: search attribute $name ($type) registered"
      return 0
    fi
    case $output in
      *"already exists"*|*AlreadyExists*)
        echo "register: search attribute $name already exists"
        return 0 ;;
    esac
    if temporal operator search-attribute list --namespace "$namespace" --address "$address" 2>/dev/null \
        | grep -qw "$name"; then
      echo "register: search attribute $name already exists"
      return 0
    fi
    if [ "$attempt" -ge "$WAIT_ATTEMPTS" ]; then
      echo "register: cannot register search attribute $name: $output" >&2
      exit 1
    fi
    attempt=$((attempt + 1))
    sleep "$WAIT_SECONDS"
  done
}

wait_for_frontend
ensure_namespace
register_search_attribute RelayDirection Keyword
register_search_attribute RelayStatus Keyword
register_search_attribute RelayEventType Keyword
register_search_attribute RelayAggregate Keyword
register_search_attribute RelayPeer Keyword
register_search_attribute RelayAttempts Int
register_search_attribute RelayEndpoints KeywordList
echo "register: namespace $namespace is ready for Relaybox"
