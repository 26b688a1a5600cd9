#ifndef PIPELINE_CVIPS_SHIM_H
#define PIPELINE_CVIPS_SHIM_H
#include <math.h>
#include <string.h>
#include <vips/vips.h>

/* libvips' API is variadic; these wrappers keep the calls (and glib) out of Swift. Every
   function returns 0 on success and -1 on failure, with the reason in pipeline_vips_error(). */

/* How /image/resize fits an image into width x height. */
enum pipeline_resize_strategy {
    PIPELINE_RESIZE_FIT = 0,      /* within the box, aspect kept */
    PIPELINE_RESIZE_FILLCROP = 1, /* cover the box, then crop the centre */
    PIPELINE_RESIZE_CROP = 2,     /* cut the centre without scaling */
    PIPELINE_RESIZE_PAD = 3,      /* fit, then pad to the box with the background */
    PIPELINE_RESIZE_STRETCH = 4,  /* exactly the box, aspect ignored */
    PIPELINE_RESIZE_MIN_FIT = 5   /* cover the box, aspect kept, no crop */
};

static inline int pipeline_vips_init(void) {
    return VIPS_INIT("pipeline");
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

static inline int pipeline_vips_size(const char *path, int *width, int *height) {
    VipsImage *image = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (image == NULL) return -1;
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    g_object_unref(image);
    return 0;
}

/* Resizes `input` into `output` (format from its extension, options such as "[Q=80]" allowed). */
static inline int pipeline_vips_resize(
    const char *input, const char *output, int width, int height, int strategy, int upscale,
    double red, double green, double blue)
{
    /* Opening is lazy: only the header is read unless pixels are needed (crop, min_fit). */
    VipsImage *in = vips_image_new_from_file(input, NULL);
    if (in == NULL) return -1;
    int source_width = vips_image_get_width(in), source_height = vips_image_get_height(in);
    if (width <= 0) width = height > 0 ? (int)ceil((double)source_width * height / source_height) : source_width;
    if (height <= 0) height = (int)ceil((double)source_height * width / source_width);
    VipsImage *out = NULL;
    int status = 0;
    VipsSize size = upscale ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN;
    switch (strategy) {
    case PIPELINE_RESIZE_FILLCROP:
        status = vips_thumbnail(input, &out, width, "height", height, "crop", VIPS_INTERESTING_CENTRE, "size", size, NULL);
        break;
    case PIPELINE_RESIZE_CROP: {
        int cut_width = width < source_width ? width : source_width;
        int cut_height = height < source_height ? height : source_height;
        status = vips_extract_area(in, &out, (source_width - cut_width) / 2, (source_height - cut_height) / 2, cut_width, cut_height, NULL);
        break;
    }
    case PIPELINE_RESIZE_STRETCH:
        status = vips_thumbnail(input, &out, width, "height", height, "size", VIPS_SIZE_FORCE, NULL);
        break;
    case PIPELINE_RESIZE_MIN_FIT: {
        double scale = fmax((double)width / source_width, (double)height / source_height);
        if (!upscale && scale > 1) scale = 1;
        status = vips_resize(in, &out, scale, NULL);
        break;
    }
    case PIPELINE_RESIZE_PAD: {
        VipsImage *fitted = NULL;
        status = vips_thumbnail(input, &fitted, width, "height", height, "size", size, NULL);
        if (status == 0) {
            double background[4] = {red, green, blue, 255};
            int bands = vips_image_get_bands(fitted);
            VipsArrayDouble *color = vips_array_double_new(background, bands < 4 ? bands : 4);
            status = vips_gravity(fitted, &out, VIPS_COMPASS_DIRECTION_CENTRE, width, height,
                                  "extend", VIPS_EXTEND_BACKGROUND, "background", color, NULL);
            vips_area_unref(VIPS_AREA(color));
            g_object_unref(fitted);
        }
        break;
    }
    default:
        /* From the file, so JPEG and WebP can shrink while loading. */
        status = vips_thumbnail(input, &out, width, "height", height, "size", size, NULL);
    }
    g_object_unref(in);
    if (status != 0) return -1;
    status = vips_image_write_to_file(out, output, NULL);
    g_object_unref(out);
    return status;
}
#endif
