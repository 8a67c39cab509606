#!/usr/bin/env bash
# collect_ssh.sh - `nnscope collect` against a real sshd that this test
# starts on a free loopback port (its own host key, a fresh user key in
# AuthorizedKeysFile, run as the current user, -D -e). Two "hosts" are two
# lines for 127.0.0.1:PORT with different remote paths, holding ranks 0,1
# and ranks 2,3 of a 4-rank run of the C example (rank 2 slowed by
# DELAY_MS per step). Checks:
#   - both hosts' traces arrive under RUN/host0 and RUN/host1;
#   - RUN/host_ips_mapping.txt names the aliases, never 127.0.0.1 nor the
#     port, and gives the same hash to the same address;
#   - every ssh run (the check and rsync's transport) had BatchMode=yes
#     (a logging wrapper given as NNSCOPE_SSH records the argv);
#   - `nnscope analyse RUN` sees the 4 ranks of both hosts as one cluster
#     and names rank 2 as the slow rank;
#   - an unreachable host and a missing path fail with a message each, the
#     good host is still gathered, the exit code is 1.
# Skips when sshd, ssh, ssh-keygen or rsync are missing.
#
#   NNSCOPE=build/nnscope bash tests/e2e/collect_ssh.sh
set -euo pipefail

# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
NNSCOPE=$(cd "$(dirname "$NNSCOPE")" && pwd)/$(basename "$NNSCOPE")
BUILD=$(dirname "$NNSCOPE")
MLP=$BUILD/examples/mlp
SSHD=$(command -v sshd || echo /usr/sbin/sshd)
for tool in ssh ssh-keygen rsync; do
	command -v $tool >/dev/null || e2e_skip "$tool is not installed (openssh-client, rsync)"
done
[ -x "$SSHD" ] || e2e_skip "sshd is not installed (openssh-server)"
e2e_need jq
e2e_built "make examples" "$MLP"

e2e_setup collect_ssh.sh nnscope-collect
SPID=""
e2e_on_exit() { [ -z "$SPID" ] || { kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null; }; }
e2e_clean_env

# ---- an sshd of our own --------------------------------------------------
ssh-keygen -q -t ed25519 -N '' -f "$TMP/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$TMP/user_key"
cp "$TMP/user_key.pub" "$TMP/authorized_keys"
chmod 600 "$TMP/authorized_keys"
# sshd run as root wants its privilege separation directory (the package
# makes it at boot)
[ "$(id -u)" = 0 ] && [ ! -d /run/sshd ] && mkdir -p -m 755 /run/sshd
start_sshd() { # PORT: 0 when it listens
	cat >"$TMP/sshd_config" <<EOF
Port $1
ListenAddress 127.0.0.1
HostKey $TMP/host_key
AuthorizedKeysFile $TMP/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
PidFile $TMP/sshd.pid
LogLevel ERROR
EOF
	"$SSHD" -D -e -f "$TMP/sshd_config" 2>"$TMP/sshd.log" &
	SPID=$!
	for _ in $(seq 50); do
		kill -0 "$SPID" 2>/dev/null || { SPID=""; return 1; }
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.1
	done
	kill "$SPID" 2>/dev/null
	SPID=""
	return 1
}
PORT=""
for _ in $(seq 10); do
	p=$(e2e_free_port) || continue
	if start_sshd $p; then PORT=$p; break; fi
done
if [ -z "$PORT" ]; then
	echo "SKIP collect_ssh.sh: could not start sshd on loopback:"
	sed 's/^/    /' "$TMP/sshd.log" | tail -3
	exit 0
fi
echo "    sshd on 127.0.0.1:$PORT"

# ssh through a wrapper that records every argv (BatchMode must be there)
cat >"$TMP/ssh-log" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$TMP/ssh-argv.log"
exec ssh "\$@"
EOF
chmod +x "$TMP/ssh-log"
export NNSCOPE_SSH=$TMP/ssh-log
SSHOPTS=(--identity "$TMP/user_key" --ssh-opt StrictHostKeyChecking=no
	--ssh-opt UserKnownHostsFile=/dev/null --ssh-opt LogLevel=ERROR --connect-timeout 5)
if ! ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	-o LogLevel=ERROR -i "$TMP/user_key" -p "$PORT" 127.0.0.1 true 2>"$TMP/probe.log"; then
	echo "SKIP collect_ssh.sh: ssh to our own sshd failed:"
	sed 's/^/    /' "$TMP/probe.log" "$TMP/sshd.log" | tail -4
	exit 0
fi

# ---- two hosts' profiler directories ---------------------------------------
STEPS=10
DELAY_MS=30
SLOW=2
ARGS=(--quiet --steps $STEPS --batch 32 --in 64 --hidden 64)
pids=()
for r in 0 1 2 3; do
	delay=0
	[ $r = $SLOW ] && delay=$DELAY_MS
	dir=$TMP/remoteA/prof
	[ $r -ge 2 ] && dir=$TMP/remoteB/prof
	env RANK=$r WORLD_SIZE=4 LOCAL_RANK=$r NNS_MLP_DELAY_MS=$delay "$MLP" "${ARGS[@]}" \
		--out "$dir" >"$TMP/rank$r.log" 2>&1 &
	pids+=($!)
done
ok=1
for p in "${pids[@]}"; do wait "$p" || ok=0; done
check "4 ranks ran (2 per fake host)" test $ok = 1 -a \
	"$(find "$TMP/remoteA" "$TMP/remoteB" -name '*.nnst' | wc -l)" -eq 4

cat >"$TMP/hosts" <<EOF
# two fake hosts: the same sshd, two remote paths
127.0.0.1:$PORT $TMP/remoteA/prof
$(id -un)@127.0.0.1:$PORT   # this one uses --remote-path
EOF
RUN=$TMP/run
if "$NNSCOPE" collect --hosts "$TMP/hosts" --remote-path "$TMP/remoteB/prof" --out "$RUN" \
	"${SSHOPTS[@]}" >"$TMP/collect.log" 2>&1; then
	pass "nnscope collect (exit 0)"
else
	fail "nnscope collect"
	sed 's/^/    /' "$TMP/collect.log" | tail -5
fi
check "host0 has ranks 0,1's traces" test "$(find "$RUN/host0" -name '*.nnst' | wc -l)" -eq 2
check "host1 has ranks 2,3's traces" test "$(find "$RUN/host1" -name '*.nnst' | wc -l)" -eq 2
check "the traces arrived unchanged" \
	diff <(cd "$TMP/remoteA/prof" && find . -name '*.nnst' -exec cksum {} + | sort) \
	<(cd "$RUN/host0" && find . -name '*.nnst' -exec cksum {} + | sort)
M=$RUN/host_ips_mapping.txt
check "host_ips_mapping.txt lists host0 and host1" \
	test "$(grep -c '^host[01] sha256:[0-9a-f]\{16\} ok$' "$M" 2>/dev/null)" -eq 2
check "no address or port in the run's text files" \
	bash -c "! grep -rIl -e '127\\.0\\.0\\.1' -e ':$PORT' '$RUN'"
h0=$(awk '$1 == "host0" {print $2}' "$M" 2>/dev/null)
h1=$(awk '$1 == "host1" {print $2}' "$M" 2>/dev/null)
# host1's line has a user name: a different "[user@]host:port" key
check "different [user@]host:port keys give different hashes" test -n "$h0" -a "$h0" != "$h1"
check "every ssh run had -o BatchMode=yes" \
	bash -c "test -s '$TMP/ssh-argv.log' && ! grep -v -e '-o BatchMode=yes' '$TMP/ssh-argv.log'"
check "ssh ran for the checks and for rsync's transport" \
	test "$(grep -c 'rsync --server' "$TMP/ssh-argv.log")" -eq 2

# ---- the collected run is one cluster ------------------------------------
if "$NNSCOPE" analyse "$RUN" --out "$TMP/out" -q >"$TMP/analyse.log" 2>&1; then
	pass "nnscope analyse on the collected run"
else
	fail "nnscope analyse on the collected run"
	sed 's/^/    /' "$TMP/analyse.log" | tail -5
fi
C=$TMP/out/cluster.json
check "cluster.json: ranks 0..3 of both hosts in one cluster" jqt "$C" '[.ranks[].rank] == [0,1,2,3]'
check "workers named by alias: ranks 0,1 on host0, 2,3 on host1" \
	jqt "$C" '[.ranks[].worker | split("_")[0]] == ["host0","host0","host1","host1"]'
check "the slow rank across hosts is rank $SLOW" \
	jqt "$C" "[.proposals[] | select(.id == \"slow_rank\") | .rank] == [$SLOW]"
check "per-worker results under the aliased names" \
	test "$(find "$TMP/out" -maxdepth 2 -path '*/host[01]_*/steptrace.json' | wc -l)" -eq 4

# ---- failures: one per host, the others kept --------------------------------
CLOSED=$((PORT == 65535 ? PORT - 1 : PORT + 1))
while (exec 3<>"/dev/tcp/127.0.0.1/$CLOSED") 2>/dev/null; do CLOSED=$((CLOSED + 1)); done
cat >"$TMP/hosts2" <<EOF
127.0.0.1:$CLOSED $TMP/remoteA/prof
127.0.0.1:$PORT $TMP/no/such/dir
127.0.0.1:$PORT $TMP/remoteB/prof
EOF
set +e
"$NNSCOPE" collect --hosts "$TMP/hosts2" --out "$TMP/run2" "${SSHOPTS[@]}" \
	>"$TMP/collect2.out" 2>"$TMP/collect2.err"
rc=$?
set -e
sed 's/^/    /' "$TMP/collect2.err"
check "a failed host: exit 1" test $rc -eq 1
check "host0: unreachable, said in one line" grep -q '^nnscope: host0 (line 1, .*unreachable' "$TMP/collect2.err"
check "host1: the missing path is named" grep -q "^nnscope: host1 (line 2, .*no such directory $TMP/no/such/dir" "$TMP/collect2.err"
check "host2 still gathered" test "$(find "$TMP/run2/host2" -name '*.nnst' | wc -l)" -eq 2
check "the mapping marks host0,1 failed, host2 ok" \
	test "$(awk '$1 ~ /^host/ {printf "%s ", $3}' "$TMP/run2/host_ips_mapping.txt")" = "failed failed ok "
check "same address and port (host1, host2): same hash" \
	test "$(awk '$1 == "host1" {print $2}' "$TMP/run2/host_ips_mapping.txt")" = \
	"$(awk '$1 == "host2" {print $2}' "$TMP/run2/host_ips_mapping.txt")"

# ---- usage ------------------------------------------------------------------
set +e
"$NNSCOPE" collect --hosts "$TMP/hosts" --out "$TMP/run3" --ssh-opt BatchMode=no >/dev/null 2>&1
rc_batch=$?
printf 'bad;host /tmp\n' >"$TMP/hosts_bad"
"$NNSCOPE" collect --hosts "$TMP/hosts_bad" --remote-path x --out "$TMP/run3" 2>"$TMP/bad.err"
rc_bad=$?
# hosts lines: bad ports and names are refused; an IPv6 [addr]:port parses
# (nothing listens on [::1]:CLOSED: it must fail as unreachable, not as a
# malformed line)
for bad in 'node:70000' 'node:' '@node' '[::1' '[::1]x' 'fe80::1:22' '-oProxyCommand=x'; do
	printf '%s /tmp\n' "$bad" >"$TMP/hosts_b"
	"$NNSCOPE" collect --hosts "$TMP/hosts_b" --out "$TMP/run3" 2>"$TMP/b.err" >/dev/null
	rc=$?
	grep -q 'hosts_b:1:' "$TMP/b.err" && [ $rc -eq 1 ] || { echo "    not refused: '$bad'"; rc_bad=99; }
done
printf '[::1]:%s /tmp\n' "$CLOSED" >"$TMP/hosts_v6"
"$NNSCOPE" collect --hosts "$TMP/hosts_v6" --out "$TMP/run4" --connect-timeout 2 \
	--ssh-opt StrictHostKeyChecking=no 2>"$TMP/v6.err" >/dev/null
rc_v6=$?
set -e
check "[::1]:port parses (fails as unreachable, not as a bad line)" \
	bash -c "test $rc_v6 -eq 1 && grep -q 'host0 (line 1, \[::1\]:$CLOSED): unreachable' '$TMP/v6.err'"
check "--ssh-opt BatchMode=no is refused (usage, exit 2)" test $rc_batch -eq 2
check "malformed hosts lines (bad port, no host, '-' option, bad brackets): exit 1 naming file:line" \
	bash -c "test $rc_bad -eq 1 && grep -q 'hosts_bad:1:' '$TMP/bad.err'"

e2e_summary
