#ifndef PIPELINE_CVIPS_SHIM_H
#define PIPELINE_CVIPS_SHIM_H
#include <string.h>
#include <vips/vips.h>

/* libvips' API is variadic: one typed wrapper per call the engine makes, and nothing else. The
   resize strategies themselves are Swift (Engine/ImageResizer.swift). Functions returning int
   give 0 on success and -1 on failure, with the reason in pipeline_vips_error(). */

/* The engine runs files in parallel on every core itself, so each image runs on one thread
   (libvips' own pool costs more than it gains on small images), no image is kept in the
   operation cache (every file is new), and no vector code is compiled at run time (ORC: its
   compilation, once per operation, costs more than it saves on the images people upload). */
static inline int pipeline_vips_init(void) {
    if (VIPS_INIT("pipeline") != 0) return -1;
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    vips_vector_set_enabled(0);
    return 0;
}

/* The last error, cleared after reading. The copy is owned by the caller's buffer. */
static inline void pipeline_vips_error(char *buffer, size_t size) {
    const char *message = vips_error_buffer();
    if (size > 0) {
        strncpy(buffer, message ? message : "", size - 1);
        buffer[size - 1] = 0;
    }
    vips_error_clear();
}

/* Opens an image lazily (only the header is read until pixels are needed); NULL on failure. */
static inline VipsImage *pipeline_vips_open(const char *path, int sequential) {
    return sequential ? vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL)
                      : vips_image_new_from_file(path, NULL);
}

/* Thumbnails the file at `path` into width x height: `crop` covers the box and cuts its centre,
   `force` ignores the aspect, `upscale` allows growing. */
static inline int pipeline_vips_thumbnail(const char *path, VipsImage **out, int width, int height, int crop, int force, int upscale) {
    VipsSize size = force ? VIPS_SIZE_FORCE : (upscale ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN);
    return crop ? vips_thumbnail(path, out, width, "height", height, "crop", VIPS_INTERESTING_CENTRE, "size", size, NULL)
                : vips_thumbnail(path, out, width, "height", height, "size", size, NULL);
}

static inline int pipeline_vips_extract(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

static inline int pipeline_vips_scale(VipsImage *in, VipsImage **out, double scale) {
    return vips_resize(in, out, scale, NULL);
}

/* Centres `in` on a width x height canvas of the background colour. */
static inline int pipeline_vips_pad(VipsImage *in, VipsImage **out, int width, int height, double red, double green, double blue) {
    double background[4] = {red, green, blue, 255};
    int bands = vips_image_get_bands(in);
    VipsArrayDouble *color = vips_array_double_new(background, bands < 4 ? bands : 4);
    int status = vips_gravity(in, out, VIPS_COMPASS_DIRECTION_CENTRE, width, height,
                              "extend", VIPS_EXTEND_BACKGROUND, "background", color, NULL);
    vips_area_unref(VIPS_AREA(color));
    return status;
}

/* Writes an image; the format comes from the extension, options such as "[Q=80]" allowed. */
static inline int pipeline_vips_write(VipsImage *image, const char *path) {
    return vips_image_write_to_file(image, path, NULL);
}

static inline void pipeline_vips_release(VipsImage *image) {
    g_object_unref(image);
}
#endif
