/*
 * answer_driver.c — what the module makes of answer lines, for
 * ContractTests (answerGrammarAgrees): reads "STATUS<TAB>LINE" lines on stdin and prints, for
 * each, "rejected" or "accepted WORD kind=K grid=G length=N failures=F left=L
 * seconds=S disabled=D unseen=U since=T repeated=R never=N", the fields
 * pingate_parse_answer() fills.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pingate_module.h"

int main(void)
{
	static const char *const kinds[] = { "none", "pin", "pattern" };
	char input[2 * PINGATE_ANSWER_MAX], word[PINGATE_ANSWER_MAX];

	while (fgets(input, sizeof(input), stdin) != NULL) {
		struct pingate_answer answer;
		char *tab = strchr(input, '\t');

		input[strcspn(input, "\n")] = '\0';
		if (tab == NULL) {
			puts("rejected");
			continue;
		}
		*tab = '\0';
		memset(&answer, 0, sizeof(answer));
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(tab + 1, " "), tab + 1);
		if (!pingate_parse_answer(tab + 1, atoi(input), &answer))
			puts("rejected");
		else
			printf("accepted %s kind=%s grid=%u length=%u failures=%u left=%u seconds=%lu disabled=%d unseen=%u since=%llu"
				" repeated=%d never=%d\n",
				word, kinds[answer.kind], answer.grid, answer.length, answer.failures, answer.left,
				answer.seconds, answer.disabled, answer.unseen, answer.since, answer.repeated,
				answer.never_a_credential);
	}
	return 0;
}
