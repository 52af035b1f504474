/* sd-login: logind's sessions, seats and users, read from its state files
 * and the caller's cgroup (libsystemd-dev). */
#include <systemd/sd-login.h>
