#!/usr/bin/env bash
# S3 configuration as OmniGraph reads it, end to end on the RGW test server (docs/design/s3.md
# "Configuration and addressing", decisions 150 and 151): init, load, query and export an s3://
# graph with the credentials only in a shared credentials file chosen by AWS_PROFILE (no
# AWS_ACCESS_KEY_ID in the environment) and the endpoint from AWS_ENDPOINT_URL_S3 with
# AWS_ALLOW_HTTP=true; then region and endpoint from the profile's services section in a config
# file; and the errors naming AWS_ALLOW_HTTP, the profile, the profile's key and a file's line.
#
#   s3config.sh OMNIGRAPH    (needs the exports of scripts/servers.sh: without them it fails
#                             under CI=true and skips, exit 77, elsewhere)
set -u
BIN=$1
if [ -z "${OMNIGRAPH_TEST_S3_URI:-}" ] || [ -z "${AWS_ACCESS_KEY_ID:-}" ] ||
   [ -z "${AWS_ENDPOINT_URL_S3:-${AWS_ENDPOINT_URL:-}}" ]; then
  MSG="no S3 test server: start it first with \`source scripts/servers.sh && servers_start\`"
  [ "${CI:-}" = true ] && { echo "FAIL: $MSG"; exit 1; }
  echo "SKIP: $MSG"; exit 77
fi
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_rc() { local want=$1; shift; "$@" >"$DIR/out" 2>"$DIR/err"; local rc=$?
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $(cat "$DIR/err") $(cat "$DIR/out")"; }
# has FILE TEXT: the file contains TEXT (fixed string).
has() { grep -qF -- "$2" "$1" || fail "$(basename "$1") lacks '$2': $(cat "$1")"; }

KEY=$AWS_ACCESS_KEY_ID
SECRET=$AWS_SECRET_ACCESS_KEY
ENDPOINT=${AWS_ENDPOINT_URL_S3:-$AWS_ENDPOINT_URL}
URI=$OMNIGRAPH_TEST_S3_URI/s3config-$$-$RANDOM
# No S3 setting from the caller's environment: each command below gets only what it names.
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_ENDPOINT_URL \
  AWS_ENDPOINT_URL_S3 AWS_ALLOW_HTTP AWS_REGION AWS_DEFAULT_REGION AWS_PROFILE \
  AWS_SHARED_CREDENTIALS_FILE AWS_CONFIG_FILE AWS_S3_FORCE_PATH_STYLE S3_FORCE_PATH_STYLE
export HOME=$DIR/home
mkdir -p "$HOME/.aws"
# The default profile's keys are wrong: only AWS_PROFILE=rgw reaches the server.
cat >"$HOME/.aws/credentials" <<EOF
# written by tests/cli/s3config.sh
[default]
aws_access_key_id = NOTTHEKEY00000000000
aws_secret_access_key = not-the-secret

[rgw]
aws_access_key_id = $KEY
aws_secret_access_key = $SECRET
EOF

cat >"$DIR/s.pg" <<'PG'
node Person { name: String @key  age: I32? }
PG
printf '%s\n' '{"type":"Person","data":{"name":"Ada","age":36}}' \
  '{"type":"Person","data":{"name":"Grace","age":41}}' >"$DIR/seed.jsonl"

# The credentials file and AWS_PROFILE; the endpoint from AWS_ENDPOINT_URL_S3.
profile() { env AWS_PROFILE=rgw AWS_ENDPOINT_URL_S3="$ENDPOINT" AWS_ALLOW_HTTP=true "$@"; }
expect_rc 0 profile "$BIN" init --schema "$DIR/s.pg" "$URI"
expect_rc 0 profile "$BIN" load --data "$DIR/seed.jsonl" --mode overwrite --yes --json "$URI"
has "$DIR/out" '"total_entities": 2'
# shellcheck disable=SC2016  # a query's variables, not the shell's
expect_rc 0 profile "$BIN" query -e 'query q() { match { $p: Person } return { $p.name, $p.age } order { $p.name } }' \
  --format csv "$URI"
[ "$(tr '\n' ' ' <"$DIR/out")" = "p.name,p.age Ada,36 Grace,41 " ] ||
  fail "query on $URI: $(cat "$DIR/out")"

# Region and endpoint from the profile's services section in AWS_CONFIG_FILE; AWS_ALLOW_HTTP is
# still needed for the http:// endpoint the file names.
cat >"$DIR/config" <<EOF
[profile rgw]
region = us-east-1
services = test-rgw

[services test-rgw]
s3 =
  endpoint_url = $ENDPOINT
EOF
expect_rc 0 env AWS_PROFILE=rgw AWS_CONFIG_FILE="$DIR/config" AWS_ALLOW_HTTP=true \
  "$BIN" export "$URI"
has "$DIR/out" '"name":"Grace"'
expect_rc 1 env AWS_PROFILE=rgw AWS_CONFIG_FILE="$DIR/config" "$BIN" export "$URI"
has "$DIR/err" "endpoint_url of s3 in [services test-rgw] of $DIR/config line 6 '$ENDPOINT' is plain HTTP; set AWS_ALLOW_HTTP=true to allow it"

# The errors: each names what to fix.
expect_rc 1 env AWS_PROFILE=rgw AWS_ENDPOINT_URL_S3="$ENDPOINT" "$BIN" export "$URI"
has "$DIR/err" "AWS_ENDPOINT_URL_S3 '$ENDPOINT' is plain HTTP; set AWS_ALLOW_HTTP=true to allow it"
expect_rc 1 env AWS_ENDPOINT_URL_S3="$ENDPOINT" AWS_ALLOW_HTTP=true "$BIN" export "$URI"
has "$DIR/err" "aws_access_key_id of profile 'default' in $HOME/.aws/credentials"
expect_rc 1 env AWS_PROFILE=rgw2 AWS_ENDPOINT_URL_S3="$ENDPOINT" AWS_ALLOW_HTTP=true \
  "$BIN" export "$URI"
has "$DIR/err" "AWS_PROFILE names profile 'rgw2', which is in neither $HOME/.aws/credentials and $HOME/.aws/config (absent)"
printf '[profile rgw]\nregion\n' >"$DIR/bad-config"
expect_rc 1 env AWS_PROFILE=rgw AWS_CONFIG_FILE="$DIR/bad-config" AWS_ENDPOINT_URL_S3="$ENDPOINT" \
  AWS_ALLOW_HTTP=true "$BIN" export "$URI"
has "$DIR/err" "$DIR/bad-config line 2: expected 'name = value', found 'region'"
# The environment's keys win over the profile's (here the wrong default ones are not used).
expect_rc 0 env AWS_ACCESS_KEY_ID="$KEY" AWS_SECRET_ACCESS_KEY="$SECRET" \
  AWS_ENDPOINT_URL="$ENDPOINT" AWS_ALLOW_HTTP=true "$BIN" export "$URI"
has "$DIR/out" '"name":"Ada"'
echo "cli s3config: ok"
