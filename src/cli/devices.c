/* devices.c - `ktune devices`: the devices each GPU backend sees here
 * (ktune_devices), so a user knows what --platform can name. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static const char USAGE[] =
    "usage: ktune devices [--json]\n\n"
    "List the devices that ktune's GPU backends see on this machine: CUDA\n"
    "devices through the CUDA driver, and every OpenCL platform's devices\n"
    "through the OpenCL ICD loader (PoCL's CPU device among them), one line\n"
    "each: backend, platform (what 'ktune tune --platform NAME' matches a\n"
    "part of), its version, the device's ordinal within the platform and its\n"
    "name. A backend with no device here is one line saying why.\n\n"
    "  --json   print a JSON array of {\"backend\", \"platform\", \"version\",\n"
    "           \"ordinal\", \"name\"} (ordinal -1 with \"note\": none here)\n"
    "  --help   this text\n\n"
    "exit status: 0 at least one device, 1 none, 2 bad usage.\n";

static json_object *device_json(const ktune_device *d)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "backend", json_object_new_string(d->backend));
    if (d->ordinal >= 0) {
        json_object_object_add(o, "platform", json_object_new_string(d->platform));
        json_object_object_add(o, "version", json_object_new_string(d->version));
        json_object_object_add(o, "name", json_object_new_string(d->name));
    } else {
        json_object_object_add(o, "note", json_object_new_string(d->note));
    }
    json_object_object_add(o, "ordinal", json_object_new_int(d->ordinal));
    return o;
}

static void print_text(const ktune_device *d)
{
    if (d->ordinal < 0)
        printf("%-7s none here: %s\n", d->backend, d->note);
    else
        printf("%-7s %s (%s)  %d  %s\n", d->backend, d->platform, d->version, d->ordinal,
               d->name);
}

int cli_devices(int argc, char **argv)
{
    static const struct option LONG[] = {{"json", no_argument, 0, 'J'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    bool json = false;
    int c;
    optind = 1;
    while ((c = cli_getopt("devices", argc, argv, LONG)) != -1) {
        if (c == 'h') {
            fputs(USAGE, stdout);
            return CLI_OK;
        }
        if (c != 'J')
            return CLI_USAGE;
        json = true;
    }
    if (optind != argc)
        return cli_usage_error("devices", "no arguments expected");
    ktune_device list[64];
    size_t n = 0, found = 0;
    ktune_diag diag = {{0}};
    if (ktune_devices(list, 64, &n, &diag) != KTUNE_OK)
        return cli_error("%s", diag.msg);
    n = n < 64 ? n : 64;
    json_object *arr = json ? json_object_new_array() : NULL;
    for (size_t i = 0; i < n; i++) {
        found += list[i].ordinal >= 0;
        if (arr)
            json_object_array_add(arr, device_json(&list[i]));
        else
            print_text(&list[i]);
    }
    if (arr)
        cli_json_print(arr);
    return found ? CLI_OK : CLI_FAIL;
}
