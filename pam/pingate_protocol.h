/*
 * pingate_protocol.h — the contract between pam_pingate.so and pingate-verify.
 *
 * The module runs the helper much as pam_unix runs unix_chkpwd: stdin and
 * stdout on pipes, every other descriptor closed, an absolute path and an
 * empty environment (started with posix_spawn, pingate_run.c). This header is the contract's one copy: the module
 * includes it, and Swift imports it (Sources/CPinGateContract), so the words,
 * exit statuses, limits, prompts and default services below are written
 * nowhere else.
 *
 * REQUEST (helper's stdin, at most PINGATE_REQUEST_MAX bytes, then EOF)
 *
 *   pingate-verify/1\n              first line, the protocol version
 *   op=status|verify|change\n       required
 *   user=NAME\n                     required; a non-root caller may name only
 *                                   the user of its own real uid
 *   service=NAME\n                  PAM_SERVICE, always sent by the module
 *                                   ("(none)" or "(unprintable)" when it has
 *                                   no usable one): a name not in
 *                                   pingate.conf's services is answered
 *                                   not-offered. Absent: the admin CLI,
 *                                   which is no PAM service
 *   tty=NAME\n                      optional, for the log (PAM_TTY); an X
 *                                   display on a host (HOST:N, lightdm's
 *                                   XDMCP displays) makes the request
 *                                   remote: no PIN (see not-local)
 *   rhost=NAME\n                    optional (PAM_RHOST); any value makes the
 *                                   request remote: no PIN (see not-local)
 *   caller_uid=N\n                  optional, from a root caller only: the real
 *   caller_pid=N\n                  uid and pid of the process it acts for (the
 *                                   module's caller); the helper judges where
 *                                   that process is. A non-root caller is
 *                                   judged by itself, whatever it writes.
 *   allow_remote=1\n                optional, honoured from a root caller only:
 *                                   the module's allow_remote option
 *   notice=N\n                      verify, change, optional: the caller
 *                                   showed the owner N failed attempts (the
 *                                   status's unseen=N) before the secret was
 *                                   typed; a success spends the notice only
 *                                   when exactly those are unseen then: N,
 *                                   the first at notice_since. Nothing else
 *                                   spends it: not a status, not a success
 *                                   where it was not shown
 *   notice_since=T\n                with notice: the status's since=T, the
 *                                   Unix time of the first of them
 *   secret=TEXT\n                   verify, change: the typed PIN or pattern
 *   new_kind=pin|pattern\n          change: kind of the new credential
 *   new_grid=R\n                    change, pattern: grid size (default 3)
 *   new=TEXT\n                      change: the new PIN or pattern
 *   then=verify\n                   status: a verify may follow in the same run
 *                                   (FOLLOW-UP below)
 *
 * Every line is key=value; keys appear at most once; values hold no control
 * characters. Anything else is refused (exit PINGATE_EXIT_REFUSED).
 *
 * ANSWER (helper's stdout): one line, a word then key=value fields; the exit
 * status carries the same meaning so a caller may rely on either.
 *
 *   status:  enrolled kind=pin length=N failures=F [unseen=N since=T]  exit 0
 *              (length: the PIN's digits; absent for PINs enrolled
 *               before lengths were recorded)
 *            enrolled kind=pattern grid=R failures=F          exit 0
 *              (unseen: N failed attempts the owner has not been told of,
 *               cleared by a success or an admin, or counted since the
 *               last success, the first at Unix time T: to be shown
 *               before the PIN is asked; a status never spends them)
 *   verify:  ok                                               exit 0
 *   change:  ok                                               exit 0
 *            wrong failures=F left=N [locked=S] [disabled]    exit 1
 *              (the failure is counted; N attempts may still be made before
 *               a failure starts a timeout; S seconds of timeout if this
 *               failure started one)
 *            wrong failures=F left=N repeated                 exit 1
 *              (the answer verified wrong last time, again: not counted a
 *               second time, F is the count as it stands. A caller whose
 *               field also takes the password may hand it on as the
 *               password: a guess of it as a PIN was already counted)
 *   any:     locked seconds=S failures=F [kind=K [grid=R]]    exit 2
 *            disabled failures=F [kind=K [grid=R]]            exit 3
 *            not-enrolled                                     exit 4
 *            malformed [never] REASON...                      exit 5
 *              (not a well-formed credential; nothing counted, nothing
 *               verified. never: under no pingate.conf could it be the
 *               user's credential (a cell outside the grid or used twice,
 *               more cells than the grid has, text no pattern is written
 *               as, not digits), so a caller whose field also takes the
 *               password may hand it on as the password. Without never it
 *               broke a rule of pingate.conf as it is now (a PIN's length,
 *               a pattern's fewest cells) or ran a pattern's cells together
 *               on a grid above 3x3, and may be a credential older than
 *               the rule)
 *            error MESSAGE...                                 exit 6
 *              (store or configuration problem; fails closed)
 *            not-local REASON...                              exit 8
 *              (the caller is not a person at this machine: a remote host,
 *               an ssh or seatless session, a user manager with nobody at
 *               the seat; nothing counted, nothing verified; the password
 *               still works. Answered before the store is touched.)
 *            not-offered SERVICE                              exit 9
 *              (the service is not in pingate.conf's services: no PIN
 *               there; answered before the store is touched)
 *            password-first REASON...                         exit 10
 *              (a display manager's login (pingate.conf's
 *               password_first_services) and the user has no session yet:
 *               the first sign-in of a boot takes the password, which
 *               unlocks the keyring; nothing read, nothing counted)
 *            refused MESSAGE...                               exit 7
 *              (bad request: a terminal on stdin, oversized or malformed
 *               request, another user's record, unknown operation)
 *
 * Any other exit (a signal; 127 for a loader that failed after the exec, or
 * a helper that could not take root's real uid) means "no answer" and the
 * module must treat it as an error, never as success.
 *
 * FOLLOW-UP (one helper run per sign-in)
 *
 * A status request with then=verify whose answer is "enrolled" does not end
 * the run: the helper writes that line, then reads a second request from
 * descriptor PINGATE_FOLLOW_UP_FD (to EOF, at most PINGATE_REQUEST_MAX bytes,
 * within PINGATE_FOLLOW_UP_SECONDS). It must be a verify for the same user;
 * it is judged from the start like any request, and its answer is the run's
 * second and last line and sets the exit status. EOF with nothing read, or
 * the time running out, ends the run with the status's exit 0. The helper
 * holds no lock and no secret while it waits. Any other status answer ends
 * the run at once, as without then=verify. The module sends then=verify,
 * with a socket on descriptor 3, so that a sign-in costs one helper start;
 * a PIN typed after the helper stopped waiting goes to a new run.
 *
 * SOCKET (pingate-verify.socket: PINGATE_VERIFY_SOCKET, SOCK_SEQPACKET)
 *
 * Where a spawned helper cannot work — the caller runs with no_new_privs,
 * so the setgid bit is not applied, or the store is read-only in its mount
 * namespace (polkit 127's sandboxed agent helper) — the module connects to
 * the socket instead, and systemd starts a fresh `pingate-verify --socket`
 * for the connection (Accept=yes), its stdin and stdout the connection.
 * Each request is one message, the same text as on stdin; each answer is one
 * message, the same line followed by the line "end N", N being the exit
 * status a spawned helper would have ended with. FOLLOW-UP works the same
 * on the connection: after an "enrolled" status asked with then=verify, the
 * next message is the verify; the connection closed, or the time running
 * out, ends the run. The first request must come within
 * PINGATE_SOCKET_REQUEST_SECONDS of the verifier's start (the module sends
 * it as soon as it is connected); a peer silent that long is refused and
 * its connection closed, so that it holds none of the socket's units. The caller is the socket's peer (SO_PEERCRED): its uid
 * for the owner rule, and for a non-root peer its own pid for the locality
 * rule, checked still to be the peer (SO_PEERPIDFD, else its start time)
 * once judged; caller_uid, caller_pid and allow_remote count from a root
 * peer only, as from a root caller.
 */
#ifndef PINGATE_PROTOCOL_H
#define PINGATE_PROTOCOL_H

#define PINGATE_PROTOCOL_VERSION_LINE "pingate-verify/1"
#define PINGATE_REQUEST_MAX 4096
#define PINGATE_ANSWER_MAX 512
/* FOLLOW-UP: where the verify after a status arrives, and how long the
 * helper waits for it (a person reading the prompt and typing a PIN). */
#define PINGATE_FOLLOW_UP_FD 3
#define PINGATE_FOLLOW_UP_SECONDS 120
/* SOCKET: the line that ends an answer, with the exit status: "end N" (no
 * answer word: it follows the answer line). */
#define PINGATE_SOCKET_END_WORD "end"
/* SOCKET: how long a verifier waits for the connection's first request. The
 * module sends it right after connect(), before systemd has even started the
 * verifier, so only a stalled or hostile peer is ever this late; long enough
 * for a peer descheduled on a loaded machine, short enough that one holding
 * connections open must keep opening new ones (docs/design.md). */
#define PINGATE_SOCKET_REQUEST_SECONDS 3

/* The first word of an answer; its exit status follows from it. */
#define PINGATE_WORD_ENROLLED     "enrolled"
#define PINGATE_WORD_OK           "ok"
#define PINGATE_WORD_WRONG        "wrong"
#define PINGATE_WORD_LOCKED       "locked"
#define PINGATE_WORD_DISABLED     "disabled"
#define PINGATE_WORD_NOT_ENROLLED "not-enrolled"
#define PINGATE_WORD_MALFORMED    "malformed"
#define PINGATE_WORD_NOT_LOCAL    "not-local"
#define PINGATE_WORD_ERROR        "error"
#define PINGATE_WORD_REFUSED      "refused"
#define PINGATE_WORD_NOT_OFFERED  "not-offered"
#define PINGATE_WORD_PASSWORD_FIRST "password-first"

/*
 * The services a PIN is offered in when pingate.conf names none (its
 * `services` key, which the helper reads and applies: a request whose
 * service is not in the list is answered not-offered). One line: Swift
 * imports it (Sources/CPinGateContract), and it imports only a single literal.
 * Not su: su authenticates its target, not its caller, and the module offers
 * a PIN only to the caller's own account.
 */
#define PINGATE_DEFAULT_SERVICES "sudo sudo-i login polkit-1 i3lock swaylock xscreensaver gdm-password lightdm sddm kde cinnamon-screensaver gnome-screensaver mate-screensaver xfce4-screensaver hyprlock pingate-lock phosh greetd"

/*
 * Conversations no person sees a question of: Plasma 6's lock screen runs
 * kde-fingerprint and kde-smartcard beside kde, GNOME's runs gdm-fingerprint
 * beside gdm-password, and gdm-smartcard, once a card is in, asks for the
 * card's own PIN. The module never offers a PIN there, whatever `services`
 * says, and `pingate enable` refuses them. One line, for Swift's importer.
 */
#define PINGATE_UNSEEN_SERVICES "kde-fingerprint kde-smartcard gdm-fingerprint gdm-smartcard"

/*
 * Applications whose conversation shows no informational line, so that the
 * failed-attempt notice said there reaches nobody: i3lock, swaylock and
 * hyprlock drop PAM_TEXT_INFO, phosh ignores it, and Cinnamon's lock screen
 * wipes every info line as soon as its field takes keys (its own
 * "Incorrect password" is where the line would be). The module tells no
 * notice there, as under its `nonotice` option, whatever line brought it
 * in: PAM_SERVICE names the application through an `include` of login, the
 * pam-auth-update profile and a line an older release wrote alike. So the
 * notice waits, unspent, for a sign-in that shows it. `pingate enable`
 * writes `nonotice` on their lines from this list too. One line, for
 * Swift's importer.
 */
#define PINGATE_NO_INFO_SERVICES "i3lock swaylock hyprlock cinnamon-screensaver phosh"

/*
 * What the module asks, and what an application may tell it. A client that
 * answers the module's prompts itself (pingate-lock) recognises them by
 * these texts, in English or translated in the "pingate" catalogue.
 * PINGATE_TEXT() marks them for xgettext (po/Makefile). Variables, not
 * macros: Swift imports no macro that expands to another macro's call.
 */
#define PINGATE_TEXT(text) text
static const char *const pingate_prompt_pin = PINGATE_TEXT("PIN: ");
static const char *const pingate_prompt_pattern = PINGATE_TEXT("Pattern: ");
static const char *const pingate_prompt_pin_or_password = PINGATE_TEXT("PIN or password: ");
/*
 * The module option `again_or_password` (lock screens with one field for
 * every question): each question takes the PIN or the password, and says
 * so. No colon: GNOME and Cinnamon drop it anyway (the question is the
 * field's hint or placeholder), and Cinnamon shows any question with
 * "password:" in it as its own "Please enter your password...".
 */
static const char *const pingate_field_pin_or_password = PINGATE_TEXT("PIN or password");
static const char *const pingate_field_pattern_or_password = PINGATE_TEXT("Pattern or password");
/*
 * The module option `announce`: an info line before the first question, for
 * clients that show info lines but not a secret prompt's text (KDE's lock
 * screen labels its one field "Password" whatever is asked).
 */
static const char *const pingate_announce_pin = PINGATE_TEXT("Type your PIN, or your password");
static const char *const pingate_announce_pattern = PINGATE_TEXT("Type your pattern, or your password");
/*
 * The first line of the grid's legend, an info line before a pattern
 * question, for clients that show text only (sudo, a console): the cells'
 * numbers follow it, one row a line. A client that draws the grid itself
 * (pingate-lock) drops it.
 */
static const char *const pingate_pattern_legend = PINGATE_TEXT("Pattern grid — enter the cells in order, e.g. 1-5-9-6:");
/* Set to "1" in the PAM environment by an application: no PIN this time. */
#define PINGATE_PASSWORD_ONLY_ENV "PINGATE_PASSWORD_ONLY"

#define PINGATE_EXIT_OK           0
#define PINGATE_EXIT_WRONG        1
#define PINGATE_EXIT_LOCKED       2
#define PINGATE_EXIT_DISABLED     3
#define PINGATE_EXIT_NOT_ENROLLED 4
#define PINGATE_EXIT_MALFORMED    5
#define PINGATE_EXIT_ERROR        6
#define PINGATE_EXIT_REFUSED      7
#define PINGATE_EXIT_NOT_LOCAL    8
#define PINGATE_EXIT_NOT_OFFERED  9
#define PINGATE_EXIT_PASSWORD_FIRST 10

/*
 * LOG TEXT. The characters of outside text (a user, tty or service name, a
 * request's field) that could forge what a reader of the log or a terminal
 * sees: C0 controls and DEL (a newline starts a forged line, ESC a terminal
 * sequence), C1 controls (U+009B is a one-character CSI on some terminals,
 * U+0085 a newline), the line and paragraph separators U+2028 and U+2029,
 * and the bidi controls (U+061C, U+200E/F, U+202A-E, U+2066-9), which
 * reorder the text shown after them. The module escapes them in its log lines
 * (pingate_log_text), Swift replaces or escapes them (UntrustedText).
 */
static inline int pingate_is_untrusted_control(unsigned int scalar)
{
	return scalar <= 0x1f || (scalar >= 0x7f && scalar <= 0x9f) ||
		scalar == 0x2028 || scalar == 0x2029 || scalar == 0x061c || scalar == 0x200e || scalar == 0x200f ||
		(scalar >= 0x202a && scalar <= 0x202e) || (scalar >= 0x2066 && scalar <= 0x2069);
}

#endif
