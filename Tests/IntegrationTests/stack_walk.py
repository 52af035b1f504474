#!/usr/bin/env python3
"""stack_walk.py — what libpam runs for an auth stack, as `pingate stack` reads it.

  pingate stack SERVICE --json | python3 stack_walk.py

Walks the rules of `pingate stack --json` the way libpam 1.5.2's
_pam_dispatch_aux (libpam/pam_dispatch.c) walks its handler list for
pam_authenticate, each module returning what its `ret=` argument names, as
pam/tests/pam_test_probe.so does (PAM_IGNORE without one). A module that is
not installed returns PAM_MODULE_UNKNOWN, a rule that always fails
PAM_PERM_DENIED, and a substack's own entry is skipped. Prints one line for
each module called, "PATH<TAB>ARGUMENT...", as the probe logs it, then
"RESULT PAM_NAME" as pam/tests/pam_harness prints it; a stack libpam gives
up on is "RESULT PAM_ABORT" alone.

This is the test's model of libpam's dispatch only: what the rules are, their
order, levels and actions, comes from the reader under test
(Tests/IntegrationTests/stack_reader_test.sh compares both with libpam).
Python 3.9+, standard library only.
"""

import json
import sys

# pam.d(5)'s return names, in the order of their codes (libpam's pam_tokens.h).
RETURNS = [
    "success", "open_err", "symbol_err", "service_err", "system_err", "buf_err", "perm_denied", "auth_err",
    "cred_insufficient", "authinfo_unavail", "user_unknown", "maxtries", "new_authtok_reqd", "acct_expired",
    "session_err", "cred_unavail", "cred_expired", "cred_err", "no_module_data", "conv_err", "authtok_err",
    "authtok_recover_err", "authtok_lock_busy", "authtok_disable_aging", "try_again", "ignore", "abort",
    "authtok_expired", "module_unknown", "bad_item", "conv_again", "incomplete",
]
# pam_harness's names for the same codes.
HARNESS_NAMES = [
    "PAM_SUCCESS", "PAM_OPEN_ERR", "PAM_SYMBOL_ERR", "PAM_SERVICE_ERR", "PAM_SYSTEM_ERR", "PAM_BUF_ERR",
    "PAM_PERM_DENIED", "PAM_AUTH_ERR", "PAM_CRED_INSUFFICIENT", "PAM_AUTHINFO_UNAVAIL", "PAM_USER_UNKNOWN",
    "PAM_MAXTRIES", "PAM_NEW_AUTHTOK_REQD", "PAM_ACCT_EXPIRED", "PAM_SESSION_ERR", "PAM_CRED_UNAVAIL",
    "PAM_CRED_EXPIRED", "PAM_CRED_ERR", "PAM_NO_MODULE_DATA", "PAM_CONV_ERR", "PAM_AUTHTOK_ERR",
    "PAM_AUTHTOK_RECOVERY_ERR", "PAM_AUTHTOK_LOCK_BUSY", "PAM_AUTHTOK_DISABLE_AGING", "PAM_TRY_AGAIN",
    "PAM_IGNORE", "PAM_ABORT", "PAM_AUTHTOK_EXPIRED", "PAM_MODULE_UNKNOWN", "PAM_BAD_ITEM", "PAM_CONV_AGAIN",
    "PAM_INCOMPLETE",
]
SUCCESS, PERM_DENIED, IGNORE, MODULE_UNKNOWN = 0, 6, 25, 28
ACTIONS = {"ignore": 0, "ok": -1, "done": -2, "bad": -3, "die": -4, "reset": -5}
UNDEF, POSITIVE, NEGATIVE = 0, 1, -1


def module_return(rule):
    for argument in rule["arguments"]:
        if argument.startswith("ret=") and argument[4:] in RETURNS:
            return RETURNS.index(argument[4:])
    return IGNORE


def walk(rules):
    """The calls made and the result, as _pam_dispatch_aux computes them."""
    calls = []
    if not rules:
        return calls, PERM_DENIED            # "no modules loaded"
    impression, status = UNDEF, PERM_DENIED
    substates = {0: (impression, status)}
    index, previous_level = 0, 0
    while index < len(rules):
        rule = rules[index]
        level = rule["level"]
        if previous_level < level:
            substates[level] = (impression, status)
        previous_level = level
        if rule["kind"] == "substack":
            index += 1
            continue
        if rule["kind"] == "failing":
            retval = PERM_DENIED
        elif not rule["installed"]:
            retval = MODULE_UNKNOWN
        else:
            calls.append("\t".join([rule["module"]] + rule["arguments"]))
            retval = module_return(rule)
        value = rule["actions"][RETURNS[retval]]
        action = ACTIONS[value] if isinstance(value, str) else value
        decided = False
        if action == ACTIONS["reset"]:
            impression, status = substates[level]
        elif action in (ACTIONS["ok"], ACTIONS["done"]):
            if impression == UNDEF or (impression == POSITIVE and status == SUCCESS):
                impression, status = POSITIVE, retval
            decided = impression == POSITIVE and action == ACTIONS["done"]
        elif action in (ACTIONS["bad"], ACTIONS["die"]):
            if impression != NEGATIVE:
                impression = NEGATIVE
                status = PERM_DENIED if retval == IGNORE else retval
            decided = action == ACTIONS["die"]
        elif action != ACTIONS["ignore"]:
            remaining = action if action > 0 else 0
            while index + 1 < len(rules) and rules[index + 1]["level"] >= level and remaining > 0:
                index += 1
                while index + 1 < len(rules) and rules[index + 1]["level"] > level:
                    index += 1
                remaining -= 1
            if action <= 0 or remaining:     # a jump past the end, or no action at all
                impression, status = NEGATIVE, PERM_DENIED
        if decided:
            while index + 1 < len(rules) and rules[index + 1]["level"] >= level:
                index += 1
        index += 1
    if status == SUCCESS and impression != POSITIVE:
        status = PERM_DENIED
    return calls, status


def main():
    stack = json.load(sys.stdin)
    if stack["failure"] is not None:
        print("RESULT PAM_ABORT")
        return
    calls, status = walk(stack["rules"])
    for call in calls:
        print(call)
    print("RESULT " + HARNESS_NAMES[status])


if __name__ == "__main__":
    main()
