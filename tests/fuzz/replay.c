/* Runs a fuzz target's LLVMFuzzerTestOneInput over files, without libFuzzer:
 * the regression inputs (tests/fuzz/regressions/) replayed by `meson test`,
 * and under the sanitizer build by `make test-sanitize`.
 *
 *     replay_load FILE_OR_DIR...      replay_fit FILE_OR_DIR...
 *
 * Prints "N passed, 0 failed" (a failing input crashes the process). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *fh = fopen(path, "rb");
    if (!fh) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 0;
    }
    fseek(fh, 0, SEEK_END);
    long len = ftell(fh);
    fseek(fh, 0, SEEK_SET);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    size_t got = buf ? fread(buf, 1, (size_t)(len > 0 ? len : 0), fh) : 0;
    fclose(fh);
    if (!buf || (long)got != len) {
        free(buf);
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 0;
    }
    LLVMFuzzerTestOneInput(buf, got);
    free(buf);
    return 1;
}

static int run_path(const char *path, int *n)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such file or directory: %s\n", path);
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        *n += run_file(path);
        return 1;
    }
    DIR *dir = opendir(path);
    if (!dir)
        return 0;
    struct dirent *e;
    char full[4096];
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
            *n += run_file(full);
    }
    closedir(dir);
    return 1;
}

int main(int argc, char **argv)
{
    int n = 0, ok = 1;
    for (int i = 1; i < argc; i++)
        ok &= run_path(argv[i], &n);
    printf("%d passed, 0 failed\n", n);
    return ok && n > 0 ? 0 : 1;
}
