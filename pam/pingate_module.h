/*
 * pingate_module.h — internal interfaces of pam_pingate.so.
 *
 * The module is split by role, like pam_faillock: its options
 * (pingate_options.c), who the caller is (pingate_caller.c), running the
 * helper (pingate_helper.c), reading its answer (pingate_answer.c), and the
 * PAM glue (pam_pingate.c). Nothing here is
 * exported: every declaration is hidden, and pam_pingate.map leaves only
 * the pam_sm_* entry points visible.
 */
#ifndef PINGATE_MODULE_H
#define PINGATE_MODULE_H

#include <stdbool.h>
#include <sys/types.h>
#include <security/pam_modules.h>

#include "pingate_install.h"
#include "pingate_protocol.h"

#define PINGATE_INTERNAL __attribute__((visibility("hidden")))

#ifndef PINGATE_LOCALEDIR
#define PINGATE_LOCALEDIR "/usr/share/locale"
#endif
#define PINGATE_TEXT_DOMAIN "pingate"

#define PINGATE_RETRIES_MAX 10
/*
 * How long the module waits for one helper answer before it kills the helper.
 * At least the helper's own worst case for an honest request — its lock wait
 * (2 s, LockWait.swift), the KDF, and its lock wait again to clear — so that
 * a right PIN behind a busy record is not killed after it was counted.
 */
#define PINGATE_TIMEOUT_DEFAULT 10
#define PINGATE_TIMEOUT_MIN 5
#define PINGATE_TIMEOUT_MAX 300

struct pingate_options {
	unsigned retries;
	unsigned timeout;           /* seconds per helper request */
	bool allow_remote;
	bool try_first_pass;
	bool use_first_pass;
	bool quiet;
	bool debug;
	bool forward_pass;
	bool nonotice;              /* the client shows nothing before its field: the notice waits */
	bool again_or_password;     /* ask "PIN or password"; a non-PIN answer is the password */
	bool announce;              /* the client hides prompt texts: say a PIN is asked */
	const char *prompt;         /* NULL: PINGATE_PROMPT_PIN or _PATTERN */
	const char *helper;
	const char *conf;           /* NULL: the helper's own (pingate.conf) */
};

/*
 * Defaults, then the module arguments. pingate.conf is the helper's: it
 * answers not-offered for a service not in its `services`.
 */
PINGATE_INTERNAL int pingate_options_load(pam_handle_t *pamh,
		struct pingate_options *opts, int argc, const char **argv);

enum pingate_reply {
	PINGATE_REPLY_ENROLLED,     /* status: exit 0 */
	PINGATE_REPLY_OK,           /* verify: exit 0 */
	PINGATE_REPLY_WRONG,
	PINGATE_REPLY_LOCKED,
	PINGATE_REPLY_DISABLED,
	PINGATE_REPLY_NOT_ENROLLED,
	PINGATE_REPLY_MALFORMED,
	PINGATE_REPLY_NOT_LOCAL,    /* the helper's locality rule: not at the machine */
	PINGATE_REPLY_NOT_OFFERED,  /* the service is not in pingate.conf's services */
	PINGATE_REPLY_PASSWORD_FIRST, /* a login screen, and no session yet: the password */
	PINGATE_REPLY_ERROR,
	PINGATE_REPLY_REFUSED,
	PINGATE_REPLY_NO_ANSWER,    /* crash, exec failure, garbled or mismatched answer */
};

enum pingate_kind { PINGATE_KIND_NONE, PINGATE_KIND_PIN, PINGATE_KIND_PATTERN };

struct pingate_answer {
	enum pingate_reply reply;
	enum pingate_kind kind;     /* enrolled */
	unsigned grid;              /* enrolled kind=pattern */
	unsigned length;            /* enrolled kind=pin length=N: the PIN's digits (0: not known) */
	unsigned failures;
	unsigned left;              /* wrong */
	unsigned long seconds;      /* locked seconds=S, or wrong locked=S */
	bool disabled;              /* wrong ... disabled */
	bool repeated;              /* wrong ... repeated: the last wrong answer again, not counted */
	bool never_a_credential;    /* malformed never ...: it cannot be the user's credential */
	unsigned unseen;            /* ok/enrolled unseen=N: failures to tell the owner of */
	unsigned long long since;   /* ... since=T: Unix time of the first of them */
	char detail[2 * PINGATE_ANSWER_MAX];  /* the raw answer or why there is none, for the log */
};

/*
 * Who asks (pingate_caller.c): the calling process (its real uid and pid),
 * or, for a root process whose stdin is a unix socket (polkit's
 * socket-activated agent helper), the process at the other end. The module
 * offers a PIN only to the user it belongs to (or a root caller); whether
 * the caller is at the machine the helper decides from these facts.
 */
struct pingate_caller {
	uid_t uid;
	pid_t pid;
};

PINGATE_INTERNAL bool pingate_find_caller(pam_handle_t *pamh,
		const struct pingate_options *opts, struct pingate_caller *caller);
PINGATE_INTERNAL bool pingate_caller_owns(pam_handle_t *pamh,
		const struct pingate_options *opts, const struct pingate_caller *caller,
		const char *user);

/*
 * A run of the helper kept open from a status to the verify that follows it
 * (pingate_run.c; pingate_protocol.h, FOLLOW-UP), within one
 * pam_sm_authenticate. pid 0: none open.
 */
struct pingate_run {
	pid_t pid;
	int pidfd;      /* reaped through it: a reused pid is never waited for */
	int answers;    /* the helper's stdout */
	int follow_up;  /* our end of its descriptor PINGATE_FOLLOW_UP_FD */
	int socket;     /* or a connection to pingate-verify.socket (pingate_socket.c) */
};
#define PINGATE_RUN_NONE { 0, -1, -1, -1, -1 }
static inline bool pingate_run_is_open(const struct pingate_run *run)
{
	return run->pid != 0 || run->socket >= 0;
}
/* pingate_run_follow_up: the helper had stopped waiting; ask in a new run. */
#define PINGATE_RUN_ENDED (-2)

/*
 * Runs the helper on one request: its exit status (0-255) with its output
 * in reply, or -1 with the reason in why. With open_run, a status answered
 * "enrolled" leaves its run open there, exit 0 assumed, for
 * pingate_run_follow_up; other answers end the run as usual.
 */
PINGATE_INTERNAL int pingate_run_helper(pam_handle_t *pamh, const struct pingate_options *opts,
		const char *request, size_t len, struct pingate_run *open_run,
		char *reply, size_t reply_size, char *why, size_t why_size);
/* Sends the verify on the open run and ends it: as pingate_run_helper, or PINGATE_RUN_ENDED. */
PINGATE_INTERNAL int pingate_run_follow_up(pam_handle_t *pamh, const struct pingate_options *opts,
		struct pingate_run *run, const char *request, size_t len,
		char *reply, size_t reply_size, char *why, size_t why_size);
/* Ends an open run that no verify followed (the helper sees EOF and exits). */
PINGATE_INTERNAL void pingate_run_end(const struct pingate_options *opts, struct pingate_run *run);
/* A point on CLOCK_MONOTONIC `seconds` from now, and the milliseconds until one. */
PINGATE_INTERNAL struct timespec pingate_deadline_after(unsigned seconds);
PINGATE_INTERNAL int pingate_milliseconds_left(const struct timespec *deadline);

/*
 * pingate-verify.socket (pingate_socket.c). Whether this caller needs it:
 * no_new_privs, or a read-only store, where a spawned helper cannot count.
 */
PINGATE_INTERNAL bool pingate_socket_needed(void);
/* A connection, or -1 with why (*absent: nothing listens there; spawn instead). */
PINGATE_INTERNAL int pingate_socket_connect(bool *absent, char *why, size_t why_size);
/*
 * One request and its answer on a connection: the exit status its "end N"
 * line gives, with the answer before it in reply; -1 with why; or
 * PINGATE_RUN_ENDED if the verifier had closed the connection (it stopped
 * waiting for a follow-up).
 */
PINGATE_INTERNAL int pingate_socket_exchange(int fd, const char *request, size_t len, char *reply,
		size_t reply_size, unsigned timeout, char *why, size_t why_size);

/*
 * The notice of failed attempts the owner was told before typing: the
 * status's unseen=N since=T, sent with the verify as notice=N
 * notice_since=T. The helper spends it on a success only if exactly that
 * is unseen then: as many, the first at the same time.
 */
struct pingate_told {
	unsigned count;
	unsigned long long since;
};

/*
 * Sends one request to the helper and reads its answer. op is "status" or
 * "verify"; secret is NULL for status. The caller's facts go with it, and
 * the notice told (may be NULL: none).
 * With run (may be NULL): a status leaves its run open there for the verify,
 * and a verify goes through an open one (pingate_run_end closes one that
 * no verify followed). Never fails: trouble of any kind comes back as
 * PINGATE_REPLY_NO_ANSWER with the reason in detail.
 */
PINGATE_INTERNAL void pingate_ask_helper(pam_handle_t *pamh,
		const struct pingate_options *opts, const struct pingate_caller *caller,
		const char *op, const char *user, const char *secret, const struct pingate_told *told,
		struct pingate_run *run, struct pingate_answer *answer);

/*
 * Reads one answer line (without its newline; cut up in place) that came
 * with exit status `status` into *answer, which the caller zeroed: its first
 * word must agree with the status, and known fields must be well formed
 * (pingate_protocol.h). False if the line does not fit the protocol.
 */
PINGATE_INTERNAL bool pingate_parse_answer(char *line, int status, struct pingate_answer *answer);

/*
 * A caller-written name (PAM_USER, PAM_RUSER, the service) as a log line may
 * show it: each byte of the contract's untrusted controls (C0, C1, DEL, line
 * separators, bidi controls: pingate_is_untrusted_control), of a byte that
 * is no UTF-8, and a backslash as \xNN, so a name cannot forge, hide or
 * reorder log lines or send escapes to the terminal of whoever reads the
 * log; cut to fit.
 */
#define PINGATE_LOG_TEXT_MAX 128
PINGATE_INTERNAL const char *pingate_log_text(const char *text, char buffer[PINGATE_LOG_TEXT_MAX]);

/* True if text can be sent on a request line: UTF-8 without C0 controls or DEL, as the helper reads it. */
PINGATE_INTERNAL bool pingate_is_clean_value(const char *text, size_t max);

#endif
