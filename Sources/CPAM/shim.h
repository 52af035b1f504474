/* libpam for pingate-lock's UI process (apt: libpam0g-dev). */
#include <security/pam_appl.h>
