/*
 * pingate_answer.c — reading the helper's answer line (pingate_protocol.h).
 *
 * Apart from running the helper, so that the grammar can be tested on its
 * own: Tests/PinGateCoreTests/ContractTests.swift compiles this file
 * with a small driver and checks that it accepts and reads every answer of
 * a shared list exactly as the Swift side (DecodedAnswer) does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pingate_module.h"

static const struct {
	const char *word;
	enum pingate_reply reply;
	int exit_status;
} answer_words[] = {
	{ PINGATE_WORD_ENROLLED,     PINGATE_REPLY_ENROLLED,     PINGATE_EXIT_OK },
	{ PINGATE_WORD_OK,           PINGATE_REPLY_OK,           PINGATE_EXIT_OK },
	{ PINGATE_WORD_WRONG,        PINGATE_REPLY_WRONG,        PINGATE_EXIT_WRONG },
	{ PINGATE_WORD_LOCKED,       PINGATE_REPLY_LOCKED,       PINGATE_EXIT_LOCKED },
	{ PINGATE_WORD_DISABLED,     PINGATE_REPLY_DISABLED,     PINGATE_EXIT_DISABLED },
	{ PINGATE_WORD_NOT_ENROLLED, PINGATE_REPLY_NOT_ENROLLED, PINGATE_EXIT_NOT_ENROLLED },
	{ PINGATE_WORD_MALFORMED,    PINGATE_REPLY_MALFORMED,    PINGATE_EXIT_MALFORMED },
	{ PINGATE_WORD_NOT_LOCAL,    PINGATE_REPLY_NOT_LOCAL,    PINGATE_EXIT_NOT_LOCAL },
	{ PINGATE_WORD_NOT_OFFERED,  PINGATE_REPLY_NOT_OFFERED,  PINGATE_EXIT_NOT_OFFERED },
	{ PINGATE_WORD_PASSWORD_FIRST, PINGATE_REPLY_PASSWORD_FIRST, PINGATE_EXIT_PASSWORD_FIRST },
	{ PINGATE_WORD_ERROR,        PINGATE_REPLY_ERROR,        PINGATE_EXIT_ERROR },
	{ PINGATE_WORD_REFUSED,      PINGATE_REPLY_REFUSED,      PINGATE_EXIT_REFUSED },
};

static bool parse_number(const char *text, unsigned long long max, unsigned long long *value)
{
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return false;
	errno = 0;
	*value = strtoull(text, &end, 10);
	return errno == 0 && *end == '\0' && *value <= max;
}

/*
 * Each known key may appear once; `seconds` (of locked) and `locked` (of
 * wrong) fill the same field, so at most one of them. Unknown keys are for
 * newer helpers and are skipped.
 */
enum { SEEN_KIND = 1, SEEN_GRID = 2, SEEN_FAILURES = 4, SEEN_LEFT = 8, SEEN_SECONDS = 16,
	SEEN_UNSEEN = 32, SEEN_SINCE = 64, SEEN_LENGTH = 128 };

static bool first_time(unsigned *seen, unsigned key)
{
	bool first = (*seen & key) == 0;

	*seen |= key;
	return first;
}

static bool parse_field(struct pingate_answer *answer, unsigned *seen, const char *key, const char *value)
{
	unsigned long long n;

	if (strcmp(key, "kind") == 0) {
		if (!first_time(seen, SEEN_KIND))
			return false;
		if (strcmp(value, "pin") == 0)
			answer->kind = PINGATE_KIND_PIN;
		else if (strcmp(value, "pattern") == 0)
			answer->kind = PINGATE_KIND_PATTERN;
		else
			return false;
	} else if (strcmp(key, "grid") == 0) {
		if (!first_time(seen, SEEN_GRID) || !parse_number(value, 6, &n) || n < 3)
			return false;
		answer->grid = (unsigned)n;
	} else if (strcmp(key, "length") == 0) {
		if (!first_time(seen, SEEN_LENGTH) || !parse_number(value, 64, &n) || n < 1)
			return false;
		answer->length = (unsigned)n;
	} else if (strcmp(key, "failures") == 0 || strcmp(key, "left") == 0) {
		bool failures = key[0] == 'f';

		if (!first_time(seen, failures ? SEEN_FAILURES : SEEN_LEFT) ||
		    !parse_number(value, 1000000, &n))
			return false;
		*(failures ? &answer->failures : &answer->left) = (unsigned)n;
	} else if (strcmp(key, "seconds") == 0 || strcmp(key, "locked") == 0) {
		if (!first_time(seen, SEEN_SECONDS) || !parse_number(value, 100000000, &n))
			return false;
		answer->seconds = (unsigned long)n;
	} else if (strcmp(key, "unseen") == 0) {
		if (!first_time(seen, SEEN_UNSEEN) || !parse_number(value, 1000000, &n))
			return false;
		answer->unseen = (unsigned)n;
	} else if (strcmp(key, "since") == 0) {
		if (!first_time(seen, SEEN_SINCE) || !parse_number(value, 100000000000ULL, &answer->since))
			return false;
	}
	return true;  /* unknown keys are for newer helpers */
}

bool pingate_parse_answer(char *line, int status, struct pingate_answer *answer)
{
	char *save = NULL, *word, *eq;
	size_t i, count = sizeof(answer_words) / sizeof(answer_words[0]);
	unsigned seen = 0;

	if (line[0] == ' ')
		return false;  /* the word comes first */
	word = strtok_r(line, " ", &save);
	for (i = 0; word != NULL && i < count; i++)
		if (strcmp(word, answer_words[i].word) == 0)
			break;
	if (word == NULL || i == count || answer_words[i].exit_status != status)
		return false;
	answer->reply = answer_words[i].reply;
	if (answer->reply == PINGATE_REPLY_MALFORMED) {
		word = strtok_r(NULL, " ", &save);
		answer->never_a_credential = word != NULL && strcmp(word, "never") == 0;
	}
	if (answer->reply >= PINGATE_REPLY_MALFORMED)
		return true;  /* the rest is a message */
	while ((word = strtok_r(NULL, " ", &save)) != NULL) {
		if (strcmp(word, "disabled") == 0)
			answer->disabled = true;
		else if (strcmp(word, "repeated") == 0)
			answer->repeated = true;
		else if ((eq = strchr(word, '=')) != NULL) {
			*eq = '\0';
			if (!parse_field(answer, &seen, word, eq + 1))
				return false;
		}
	}
	if (answer->reply == PINGATE_REPLY_ENROLLED && answer->kind == PINGATE_KIND_NONE)
		return false;
	if (answer->kind == PINGATE_KIND_PATTERN && answer->grid == 0)
		return false;
	return true;
}

