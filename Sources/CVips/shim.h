#ifndef PIPELINE_CVIPS_SHIM_H
#define PIPELINE_CVIPS_SHIM_H
#include <dlfcn.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libvips is loaded when the local engine first needs it, not linked: it brings about a hundred
   shared libraries that every command would otherwise map at start (13 MB and 20 ms), while only
   the engine reads images. What the engine uses of libvips 8's stable ABI (soname 42) is
   declared here: an opaque image type, the enum values passed as options, and one typed wrapper
   per call, each finding its function by name in the loaded library. libvips' API is variadic;
   the resize strategies themselves are Swift (Engine/ImageResizer.swift). Functions returning
   int give 0 on success and -1 on failure, with the reason in pipeline_vips_error(). */

typedef struct _VipsImage VipsImage;
typedef struct _VipsSource VipsSource;

enum {
    PIPELINE_VIPS_ACCESS_SEQUENTIAL = 1,     /* VipsAccess */
    PIPELINE_VIPS_FAIL_ON_ERROR = 2,         /* VipsFailOn: truncated or damaged images fail */
    PIPELINE_VIPS_SIZE_BOTH = 0,             /* VipsSize */
    PIPELINE_VIPS_SIZE_DOWN = 2,
    PIPELINE_VIPS_SIZE_FORCE = 3,
    PIPELINE_VIPS_INTERESTING_CENTRE = 1,    /* VipsInteresting */
    PIPELINE_VIPS_COMPASS_CENTRE = 0,        /* VipsCompassDirection */
    PIPELINE_VIPS_EXTEND_BACKGROUND = 5,     /* VipsExtend */
};

#define PIPELINE_VIPS_LIBRARY "libvips.so.42"

/* A function of the loaded library (or of a library it loaded, such as GObject); NULL when
   libvips is not loaded. RTLD_NOLOAD never loads anything: it finds the loaded copy. */
static inline void *pipeline_vips_symbol(const char *name) {
    void *library = dlopen(PIPELINE_VIPS_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
    if (library == NULL) return NULL;
    void *symbol = dlsym(library, name);
    dlclose(library);
    return symbol;
}

/* Each call site looks its function up once and keeps it (libvips is never unloaded): a lookup
   takes the loader's lock, and an image costs some thirty calls. */
#define PIPELINE_VIPS_CALL(type, name) ({                                   \
    static void *pipeline_vips_found;                                      \
    void *found = __atomic_load_n(&pipeline_vips_found, __ATOMIC_ACQUIRE); \
    if (found == NULL) {                                                   \
        found = pipeline_vips_symbol(name);                                \
        __atomic_store_n(&pipeline_vips_found, found, __ATOMIC_RELEASE);   \
    }                                                                      \
    (type)found;                                                           \
})

/* Loads and starts libvips; -1 with the loader's reason in `buffer` when it cannot.
   The engine runs files in parallel on every core itself, so each image runs on one thread
   (libvips' own pool costs more than it gains on small images), no image is kept in the
   operation cache (every file is new), and no vector code is compiled at run time (ORC: its
   compilation, once per operation, costs more than it saves on the images people upload). */
static inline int pipeline_vips_init(char *buffer, size_t size) {
    if (dlopen(PIPELINE_VIPS_LIBRARY, RTLD_NOW | RTLD_GLOBAL) == NULL) {
        const char *reason = dlerror();
        if (size > 0) {
            strncpy(buffer, reason ? reason : "cannot load " PIPELINE_VIPS_LIBRARY, size - 1);
            buffer[size - 1] = 0;
        }
        return -1;
    }
    int (*init)(const char *) = PIPELINE_VIPS_CALL(int (*)(const char *), "vips_init");
    void (*concurrency)(int) = PIPELINE_VIPS_CALL(void (*)(int), "vips_concurrency_set");
    void (*cache)(int) = PIPELINE_VIPS_CALL(void (*)(int), "vips_cache_set_max");
    void (*vector)(int) = PIPELINE_VIPS_CALL(void (*)(int), "vips_vector_set_enabled");
    if (init == NULL || concurrency == NULL || cache == NULL || vector == NULL || init("pipeline") != 0) {
        if (size > 0) {
            strncpy(buffer, "libvips started with an error", size - 1);
            buffer[size - 1] = 0;
        }
        return -1;
    }
    concurrency(1);
    cache(0);
    vector(0);
    return 0;
}

/* Where libvips' warnings go (a damaged JPEG still decodes, with "Corrupt JPEG data"): to `sink`,
   from whatever thread gave them, instead of standard error. GLib's log handler for the "VIPS"
   domain and the warning level (G_LOG_LEVEL_WARNING); 0 when GLib's function is not found. */
typedef void (*pipeline_vips_warning_sink)(const char *message);

static void pipeline_vips_log(const char *domain, int level, const char *message, void *sink) {
    (void)domain; (void)level;
    if (sink != NULL && message != NULL) ((pipeline_vips_warning_sink)sink)(message);
}

static inline int pipeline_vips_send_warnings(pipeline_vips_warning_sink sink) {
    unsigned (*handle)(const char *, int, void (*)(const char *, int, const char *, void *), void *) =
        PIPELINE_VIPS_CALL(unsigned (*)(const char *, int, void (*)(const char *, int, const char *, void *), void *), "g_log_set_handler");
    if (handle == NULL) return 0;
    return handle("VIPS", 1 << 4, pipeline_vips_log, (void *)sink) != 0;
}

/* The last error, cleared after reading. The copy is owned by the caller's buffer. */
static inline void pipeline_vips_error(char *buffer, size_t size) {
    const char *(*read)(void) = PIPELINE_VIPS_CALL(const char *(*)(void), "vips_error_buffer");
    void (*clear)(void) = PIPELINE_VIPS_CALL(void (*)(void), "vips_error_clear");
    const char *message = read ? read() : "libvips is not loaded";
    if (size > 0) {
        strncpy(buffer, message ? message : "", size - 1);
        buffer[size - 1] = 0;
    }
    if (clear) clear();
}

/* Opens an image lazily (only the header is read until pixels are needed); NULL on failure. */
/* The file at `path` as a libvips source on its open descriptor: opened once, its format told
   from the bytes the source keeps in memory. Opening by name opens and reads the file once per
   loader it tries (some fifteen times for a PNG), and a source made from the name closes and
   opens it again between stages (ten times); one made from a descriptor keeps it. NULL when
   the file cannot be opened. */
static inline VipsSource *pipeline_vips_source(const char *path) {
    VipsSource *(*source)(int) = PIPELINE_VIPS_CALL(VipsSource *(*)(int), "vips_source_new_from_descriptor");
    if (source == NULL) return NULL;
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return NULL;
    /* Only a regular file with bytes in it: libvips takes anything else for a pipe, and an empty
       file as a pipe stops the process on an assertion. NULL sends the caller to the name. */
    struct stat info;
    VipsSource *made = fstat(descriptor, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0 ? source(descriptor) : NULL;
    close(descriptor);  /* the source keeps a duplicate */
    return made;
}

/* Drops a reference to a libvips object (an image, a source). */
static inline void pipeline_vips_unref(void *object) {
    void (*unref)(void *) = PIPELINE_VIPS_CALL(void (*)(void *), "g_object_unref");
    if (unref) unref(object);
}

static inline void pipeline_vips_clear_error(void) {
    void (*clear)(void) = PIPELINE_VIPS_CALL(void (*)(void), "vips_error_clear");
    if (clear) clear();
}

static inline VipsImage *pipeline_vips_open(const char *path, int sequential) {
    VipsImage *(*from_source)(VipsSource *, const char *, ...) =
        PIPELINE_VIPS_CALL(VipsImage *(*)(VipsSource *, const char *, ...), "vips_image_new_from_source");
    VipsSource *source = pipeline_vips_source(path);
    if (source != NULL) {
        int access = sequential ? PIPELINE_VIPS_ACCESS_SEQUENTIAL : 0;
        VipsImage *image = from_source ? from_source(source, "", "access", access, "fail_on", PIPELINE_VIPS_FAIL_ON_ERROR, NULL) : NULL;
        pipeline_vips_unref(source);
        if (image != NULL) return image;
        /* A format libvips reads only by name (a loader without sources): try that, with its error. */
        pipeline_vips_clear_error();
    }
    VipsImage *(*open)(const char *, ...) = PIPELINE_VIPS_CALL(VipsImage *(*)(const char *, ...), "vips_image_new_from_file");
    if (open == NULL) return NULL;
    return sequential ? open(path, "access", PIPELINE_VIPS_ACCESS_SEQUENTIAL, "fail_on", PIPELINE_VIPS_FAIL_ON_ERROR, NULL)
                      : open(path, "fail_on", PIPELINE_VIPS_FAIL_ON_ERROR, NULL);
}

/* The image with every pixel decoded into memory now, so a damaged file fails here; NULL on failure. */
static inline VipsImage *pipeline_vips_decoded(VipsImage *image) {
    VipsImage *(*copy)(VipsImage *) = PIPELINE_VIPS_CALL(VipsImage *(*)(VipsImage *), "vips_image_copy_memory");
    return copy ? copy(image) : NULL;
}

static inline int pipeline_vips_width(const VipsImage *image) {
    int (*width)(const VipsImage *) = PIPELINE_VIPS_CALL(int (*)(const VipsImage *), "vips_image_get_width");
    return width ? width(image) : 0;
}

static inline int pipeline_vips_height(const VipsImage *image) {
    int (*height)(const VipsImage *) = PIPELINE_VIPS_CALL(int (*)(const VipsImage *), "vips_image_get_height");
    return height ? height(image) : 0;
}

/* The number of pages (or frames) of a document or animation; 1 for other images. */
static inline int pipeline_vips_pages(VipsImage *image) {
    int (*pages)(VipsImage *) = PIPELINE_VIPS_CALL(int (*)(VipsImage *), "vips_image_get_n_pages");
    return pages ? pages(image) : 1;
}

/* Thumbnails the file at `path` into width x height: `crop` covers the box and cuts its centre,
   `force` ignores the aspect, `upscale` allows growing. */
static inline int pipeline_vips_thumbnail(const char *path, VipsImage **out, int width, int height, int crop, int force, int upscale) {
    int size = force ? PIPELINE_VIPS_SIZE_FORCE : (upscale ? PIPELINE_VIPS_SIZE_BOTH : PIPELINE_VIPS_SIZE_DOWN);
    int interesting = crop ? PIPELINE_VIPS_INTERESTING_CENTRE : 0;  /* VIPS_INTERESTING_NONE */
    /* From a source first (see pipeline_vips_source), by name for formats read only that way. */
    int (*from_source)(VipsSource *, VipsImage **, int, ...) =
        PIPELINE_VIPS_CALL(int (*)(VipsSource *, VipsImage **, int, ...), "vips_thumbnail_source");
    VipsSource *source = pipeline_vips_source(path);
    if (source != NULL) {
        /* The loader behind a source thumbnail takes fail_on only from the option string. */
        int made = from_source ? from_source(source, out, width, "height", height, "crop", interesting, "size", size,
                                             "fail_on", PIPELINE_VIPS_FAIL_ON_ERROR, "option_string", "fail_on=error", NULL) : -1;
        pipeline_vips_unref(source);
        if (made == 0) return 0;
        pipeline_vips_clear_error();
    }
    int (*thumbnail)(const char *, VipsImage **, int, ...) = PIPELINE_VIPS_CALL(int (*)(const char *, VipsImage **, int, ...), "vips_thumbnail");
    if (thumbnail == NULL) return -1;
    return thumbnail(path, out, width, "height", height, "crop", interesting, "size", size, "fail_on", PIPELINE_VIPS_FAIL_ON_ERROR, NULL);
}

static inline int pipeline_vips_extract(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    int (*extract)(VipsImage *, VipsImage **, int, int, int, int, ...) =
        PIPELINE_VIPS_CALL(int (*)(VipsImage *, VipsImage **, int, int, int, int, ...), "vips_extract_area");
    return extract ? extract(in, out, left, top, width, height, NULL) : -1;
}

static inline int pipeline_vips_scale(VipsImage *in, VipsImage **out, double scale) {
    int (*resize)(VipsImage *, VipsImage **, double, ...) = PIPELINE_VIPS_CALL(int (*)(VipsImage *, VipsImage **, double, ...), "vips_resize");
    return resize ? resize(in, out, scale, NULL) : -1;
}

/* Scales width and height apart (`vscale` for the height). */
static inline int pipeline_vips_scale_each(VipsImage *in, VipsImage **out, double scale, double vertical) {
    int (*resize)(VipsImage *, VipsImage **, double, ...) = PIPELINE_VIPS_CALL(int (*)(VipsImage *, VipsImage **, double, ...), "vips_resize");
    return resize ? resize(in, out, scale, "vscale", vertical, NULL) : -1;
}

/* Centres `in` on a width x height canvas of the background colour. */
static inline int pipeline_vips_pad(VipsImage *in, VipsImage **out, int width, int height, double red, double green, double blue) {
    int (*bands)(const VipsImage *) = PIPELINE_VIPS_CALL(int (*)(const VipsImage *), "vips_image_get_bands");
    void *(*array)(const double *, int) = PIPELINE_VIPS_CALL(void *(*)(const double *, int), "vips_array_double_new");
    void (*unref)(void *) = PIPELINE_VIPS_CALL(void (*)(void *), "vips_area_unref");
    int (*gravity)(VipsImage *, VipsImage **, int, int, int, ...) =
        PIPELINE_VIPS_CALL(int (*)(VipsImage *, VipsImage **, int, int, int, ...), "vips_gravity");
    if (bands == NULL || array == NULL || unref == NULL || gravity == NULL) return -1;
    double background[4] = {red, green, blue, 255};
    int count = bands(in);
    void *color = array(background, count < 4 ? count : 4);
    int status = gravity(in, out, PIPELINE_VIPS_COMPASS_CENTRE, width, height,
                         "extend", PIPELINE_VIPS_EXTEND_BACKGROUND, "background", color, NULL);
    unref(color);
    return status;
}

/* Turns an image by `quarters` quarter turns clockwise (VipsAngle: 1 is 90 degrees). */
static inline int pipeline_vips_rotate(VipsImage *in, VipsImage **out, int quarters) {
    int (*rot)(VipsImage *, VipsImage **, int, ...) = PIPELINE_VIPS_CALL(int (*)(VipsImage *, VipsImage **, int, ...), "vips_rot");
    return rot ? rot(in, out, quarters, NULL) : -1;
}

/* The box around what differs from the background (`vips_find_trim`, which takes the colour of
   the top-left pixel as the background); -1 on failure. */
static inline int pipeline_vips_find_trim(VipsImage *in, int *left, int *top, int *width, int *height) {
    int (*trim)(VipsImage *, int *, int *, int *, int *, ...) =
        PIPELINE_VIPS_CALL(int (*)(VipsImage *, int *, int *, int *, int *, ...), "vips_find_trim");
    return trim ? trim(in, left, top, width, height, NULL) : -1;
}

/* Lays `overlay` over `base` with its top-left corner at x, y (it may reach past the edges, which
   cut it), its alpha scaled by `opacity` (0 to 1). The result keeps the base's bands: an alpha
   channel only when the base had one. */
static inline int pipeline_vips_overlay(VipsImage *base, VipsImage *overlay, VipsImage **out, int x, int y, double opacity) {
    int (*has_alpha)(VipsImage *) = PIPELINE_VIPS_CALL(int (*)(VipsImage *), "vips_image_hasalpha");
    int (*bands)(const VipsImage *) = PIPELINE_VIPS_CALL(int (*)(const VipsImage *), "vips_image_get_bands");
    int (*add_alpha)(VipsImage *, VipsImage **, ...) = PIPELINE_VIPS_CALL(int (*)(VipsImage *, VipsImage **, ...), "vips_addalpha");
    int (*linear)(VipsImage *, VipsImage **, const double *, const double *, int, ...) =
        PIPELINE_VIPS_CALL(int (*)(VipsImage *, VipsImage **, const double *, const double *, int, ...), "vips_linear");
    int (*composite)(VipsImage *, VipsImage *, VipsImage **, int, ...) =
        PIPELINE_VIPS_CALL(int (*)(VipsImage *, VipsImage *, VipsImage **, int, ...), "vips_composite2");
    int (*extract)(VipsImage *, VipsImage **, int, ...) = PIPELINE_VIPS_CALL(int (*)(VipsImage *, VipsImage **, int, ...), "vips_extract_band");
    void (*unref)(void *) = PIPELINE_VIPS_CALL(void (*)(void *), "g_object_unref");
    if (!has_alpha || !bands || !add_alpha || !linear || !composite || !extract || !unref) return -1;
    VipsImage *with_alpha = NULL, *faded = NULL, *layered = NULL;
    int status = -1;
    if (has_alpha(overlay)) {
        with_alpha = overlay;
    } else if (add_alpha(overlay, &with_alpha, NULL) != 0) {
        return -1;
    }
    int count = bands(with_alpha);
    double scale[16], offset[16];
    if (count > 16) goto done;
    for (int band = 0; band < count; band++) {
        scale[band] = band == count - 1 ? opacity : 1;
        offset[band] = 0;
    }
    if (linear(with_alpha, &faded, scale, offset, count, "uchar", 1, NULL) != 0) goto done;
    /* VIPS_BLEND_MODE_OVER is 2. */
    if (composite(base, faded, &layered, 2, "x", x, "y", y, NULL) != 0) goto done;
    if (has_alpha(base)) {
        *out = layered;
        layered = NULL;
        status = 0;
    } else {
        status = extract(layered, out, 0, "n", bands(layered) - 1, NULL);
    }
done:
    if (with_alpha && with_alpha != overlay) unref(with_alpha);
    if (faded) unref(faded);
    if (layered) unref(layered);
    return status;
}

/* The EXIF orientation (1-8) of an image's header; 1 without one. */
static inline int pipeline_vips_orientation(VipsImage *image) {
    int (*orientation)(VipsImage *) = PIPELINE_VIPS_CALL(int (*)(VipsImage *), "vips_image_get_orientation");
    return orientation ? orientation(image) : 1;
}

/* The image turned as its orientation says, so it stands as a person sees it (orientation 1 after). */
static inline int pipeline_vips_autorot(VipsImage *in, VipsImage **out) {
    int (*autorot)(VipsImage *, VipsImage **, ...) = PIPELINE_VIPS_CALL(int (*)(VipsImage *, VipsImage **, ...), "vips_autorot");
    return autorot ? autorot(in, out, NULL) : -1;
}

/* A copy of the image without the metadata `kinds` names (1 EXIF, 2 XMP, 4 IPTC: the blobs and
   the fields parsed from them, which a saver would write back; 8 the text comments of PNG, GIF
   and JPEG): what `strip` promises in every format, where a saver's own `strip` keeps some
   (libvips 8.14's WebP saver keeps EXIF and XMP) and drops the ICC profile, which is kept. */
static inline int pipeline_vips_without_metadata(VipsImage *in, VipsImage **out, int kinds) {
    int (*copy)(VipsImage *, VipsImage **, ...) = PIPELINE_VIPS_CALL(int (*)(VipsImage *, VipsImage **, ...), "vips_copy");
    char **(*fields)(VipsImage *) = PIPELINE_VIPS_CALL(char **(*)(VipsImage *), "vips_image_get_fields");
    int (*remove)(VipsImage *, const char *) = PIPELINE_VIPS_CALL(int (*)(VipsImage *, const char *), "vips_image_remove");
    void (*release)(char **) = PIPELINE_VIPS_CALL(void (*)(char **), "g_strfreev");
    if (copy == NULL || fields == NULL || remove == NULL || release == NULL || copy(in, out, NULL) != 0) return -1;
    char **names = fields(*out);
    for (char **name = names; name != NULL && *name != NULL; name++) {
        if (((kinds & 1) && (strncmp(*name, "exif-", 5) == 0 || strcmp(*name, "orientation") == 0))
            || ((kinds & 2) && strncmp(*name, "xmp-", 4) == 0) || ((kinds & 4) && strncmp(*name, "iptc-", 5) == 0)
            || ((kinds & 8) && (strncmp(*name, "png-comment-", 12) == 0 || strcmp(*name, "gif-comment") == 0
                                || strcmp(*name, "jpeg-comment") == 0)))
            remove(*out, *name);
    }
    release(names);
    return 0;
}

/* Writes an image; the format comes from the extension, options such as "[Q=80]" allowed. */
static inline int pipeline_vips_write(VipsImage *image, const char *path) {
    int (*write)(VipsImage *, const char *, ...) = PIPELINE_VIPS_CALL(int (*)(VipsImage *, const char *, ...), "vips_image_write_to_file");
    return write ? write(image, path, NULL) : -1;
}

static inline void pipeline_vips_release(VipsImage *image) {
    pipeline_vips_unref(image);
}

/* Decodes every pixel of the image at `path` (its average), for the warnings that gives; -1 when
   it is no image libvips reads. */
static inline int pipeline_vips_decode_all(const char *path) {
    VipsImage *(*open_file)(const char *, ...) = PIPELINE_VIPS_CALL(VipsImage *(*)(const char *, ...), "vips_image_new_from_file");
    int (*average)(VipsImage *, double *, ...) = PIPELINE_VIPS_CALL(int (*)(VipsImage *, double *, ...), "vips_avg");
    if (open_file == NULL || average == NULL) return -1;
    VipsImage *image = open_file(path, "access", PIPELINE_VIPS_ACCESS_SEQUENTIAL, "fail_on", PIPELINE_VIPS_FAIL_ON_ERROR, NULL);
    if (image == NULL) return -1;
    double value = 0;
    int outcome = average(image, &value, NULL);
    pipeline_vips_unref(image);
    return outcome;
}

#endif
