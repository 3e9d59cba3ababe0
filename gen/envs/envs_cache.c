/*
 * envs_cache.c - where benchgen keeps environments, uv's cache and
 * registrations (see envs_cache.h).
 */
#include "envs/envs_cache.h"
#include "base/util.h"

#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *envs_user_home(void)
{
    const char *home = getenv("HOME");
    if (!home || !*home) {
        struct passwd *pw = getpwuid(getuid());
        home = pw && pw->pw_dir ? pw->pw_dir : "/tmp";
    }
    return home;
}

const char *envs_cache_dir(void)
{
    static char dir[PATH_MAX];
    const char *bc = getenv("BENCHGEN_CACHE"), *xdg = getenv("XDG_CACHE_HOME");
    if (bc && *bc)
        snprintf(dir, sizeof(dir), "%s", bc);
    else if (xdg && xdg[0] == '/') /* the XDG spec says relative values are to be ignored */
        snprintf(dir, sizeof(dir), "%s/benchgen", xdg);
    else
        snprintf(dir, sizeof(dir), "%s/.cache/benchgen", envs_user_home());
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    util_mkdir_p(dir, 0755); /* a failure shows up, with its reason, at first use */
    return dir;
}
