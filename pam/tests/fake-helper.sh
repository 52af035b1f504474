#!/bin/sh -p
# fake-helper.sh — a scripted stand-in for pingate-verify, used ONLY to test
# pam_pingate.so's own logic (options, prompts, answer parsing, retries,
# forward_pass, exit status checks). It knows nothing of PINs.
#
# The module runs helpers with an empty environment, so the script is driven
# by files in the directory it sits in (tests copy it into a temp dir):
#   status, verify   one line per request of that op, in order (the last line
#                    repeats): "EXIT ANSWER..." — prints ANSWER, exits EXIT;
#                    "EXIT (none)" prints nothing; "kill" dies by SIGKILL;
#                    "stop" stops itself with SIGSTOP (as a user's Ctrl-Z or
#                    kill -STOP would); "sleep SECONDS LINE" waits, then LINE
#   request.N        written here: the Nth request, verbatim (with the secret)
#   argv.N           written here: its arguments, one per line
#   fds.N            written here: the descriptors it was started with
#   runs             written here: one line per start of the script
#   no-follow-up     if present, a status with then=verify ends the run
#                    anyway (as a helper that stopped waiting does); else an
#                    exit-0 answer to it is followed by the verify read from
#                    descriptor 3 (pingate_protocol.h, FOLLOW-UP)
#
# -p: started by a setuid client (sudo; euid 0, the user's real uid), it
# keeps euid 0 instead of dropping to the user, as the real helper keeps root
# (which then takes root's real uid too).
PATH=/usr/bin:/bin
dir=$(dirname "$0")

echo run >> "$dir/runs"
n=$(($(ls "$dir" | grep -c '^request\.') + 1))
ls /proc/$$/fd > "$dir/fds.$n"
cat > "$dir/request.$n"
printf '%s\n' "$@" > "$dir/argv.$n"

# answer N: the scripted answer to request N; returns its exit status.
answer() {
	op=$(sed -n 's/^op=//p' "$dir/request.$1")
	case $op in status|verify) ;; *) echo "refused unknown op"; return 7 ;; esac
	[ -f "$dir/$op" ] || { echo "error no script for $op"; return 6; }
	k=$(grep -lx "op=$op" "$dir"/request.* | wc -l)
	line=$(sed -n "${k}p" "$dir/$op")
	[ -n "$line" ] || line=$(tail -n 1 "$dir/$op")
	case $line in
	"sleep "*)
		rest=${line#sleep }
		sleep "${rest%% *}"
		line=${rest#* }
		;;
	esac
	case $line in
	kill) kill -KILL $$ ;;
	stop) kill -STOP $$; echo "ok"; return 0 ;;
	*)
		code=${line%% *}
		text=${line#* }
		[ "$text" = "(none)" ] || printf '%s\n' "$text"
		return "$code"
		;;
	esac
}

answer "$n"
code=$?
if [ "$code" = 0 ] && grep -qx "then=verify" "$dir/request.$n" && [ ! -e "$dir/no-follow-up" ]; then
	cat <&3 > "$dir/request.$((n + 1))"
	[ -s "$dir/request.$((n + 1))" ] || { rm -f "$dir/request.$((n + 1))"; exit 0; }
	answer $((n + 1))
	code=$?
fi
exit "$code"
