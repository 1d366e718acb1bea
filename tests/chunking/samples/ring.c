#include <stdlib.h>
#include <string.h>

/* A fixed-size ring buffer of bytes. */
struct ring {
    unsigned char *data;
    size_t capacity;
    size_t head;
    size_t length;
};

struct ring *ring_new(size_t capacity)
{
    struct ring *r = malloc(sizeof *r);
    if (r == NULL)
        return NULL;
    r->data = calloc(capacity, 1);
    r->capacity = capacity;
    r->head = 0;
    r->length = 0;
    return r;
}

/* Appends a byte, overwriting the oldest one when full. */
void ring_push(struct ring *r, unsigned char byte)
{
    size_t tail = (r->head + r->length) % r->capacity;
    r->data[tail] = byte;
    if (r->length < r->capacity)
        r->length++;
    else
        r->head = (r->head + 1) % r->capacity;
}

void ring_free(struct ring *r)
{
    free(r->data);
    free(r);
}
