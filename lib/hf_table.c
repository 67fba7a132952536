// SPDX-License-Identifier: MIT
/*
 * hf_table.c - the generation-checked table of objects named by tokens
 * (hf_table.h): the cards of handle.c and the streams of stream.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hf_table.h"

/**
 * struct hf_table_slot - an entry of a table.
 * @entry: the object, or NULL for a free slot
 * @gen: generation of the token that names @entry
 */
struct hf_table_slot {
	void *entry;
	uintptr_t gen;
};

/** hf_table_lock() - take @t's lock (first: register its fork handlers). */
void hf_table_lock(struct hf_table *t)
{
	pthread_once(&t->once, t->init);
	pthread_mutex_lock(&t->lock);
}

void hf_table_unlock(struct hf_table *t)
{
	pthread_mutex_unlock(&t->lock);
}

/** hf_table_wait() - wait on @t's condition variable; @t locked. */
void hf_table_wait(struct hf_table *t)
{
	pthread_cond_wait(&t->idle, &t->lock);
}

/** hf_table_wake() - wake every hf_table_wait(); @t locked. */
void hf_table_wake(struct hf_table *t)
{
	pthread_cond_broadcast(&t->idle);
}

/**
 * hf_table_insert() - enter @entry in @t; @t locked.
 * @token: receives the token that names it
 *
 * Return: 0, -EMFILE (every slot taken) or -ENOMEM.
 */
int hf_table_insert(struct hf_table *t, void *entry, uintptr_t *token)
{
	uint32_t i;

	for (i = 0; i < t->nslots && t->slots[i].entry; i++)
		;
	if (i == t->nslots) {
		uint32_t n = t->nslots ? t->nslots * 2 : 16;
		struct hf_table_slot *ns;

		if (t->nslots >= HF_TABLE_MAX_SLOTS)
			return -EMFILE;
		if (n > HF_TABLE_MAX_SLOTS)
			n = HF_TABLE_MAX_SLOTS;
		ns = realloc(t->slots, n * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		memset(ns + t->nslots, 0, (n - t->nslots) * sizeof(*ns));
		t->slots = ns;
		t->nslots = n;
	}
	t->next_gen = (t->next_gen + 1) & (UINTPTR_MAX >> HF_TABLE_SLOT_BITS);
	if (!t->next_gen)
		t->next_gen = 1;
	t->slots[i].entry = entry;
	t->slots[i].gen = t->next_gen;
	*token = t->next_gen << HF_TABLE_SLOT_BITS | (uintptr_t)(i + 1);
	return 0;
}

/* The slot @token names, if it is the token of the entry in it; locked. */
static struct hf_table_slot *slot_of(struct hf_table *t, uintptr_t token)
{
	uint32_t i = (uint32_t)(token & HF_TABLE_MAX_SLOTS);

	if (!i || i > t->nslots || !t->slots[i - 1].entry ||
	    t->slots[i - 1].gen != token >> HF_TABLE_SLOT_BITS)
		return NULL;
	return &t->slots[i - 1];
}

/** hf_table_find() - the entry @token names, or NULL; @t locked. */
void *hf_table_find(struct hf_table *t, uintptr_t token)
{
	struct hf_table_slot *s = slot_of(t, token);

	return s ? s->entry : NULL;
}

/**
 * hf_table_remove() - take the entry @token names out of @t (later
 *	lookups fail); @t locked.
 * Return: the entry, or NULL when @token names none.
 */
void *hf_table_remove(struct hf_table *t, uintptr_t token)
{
	struct hf_table_slot *s = slot_of(t, token);
	void *entry;

	if (!s)
		return NULL;
	entry = s->entry;
	s->entry = NULL;
	return entry;
}

void hf_table_fork_prepare(struct hf_table *t)
{
	pthread_mutex_lock(&t->lock);
}

void hf_table_fork_parent(struct hf_table *t)
{
	pthread_mutex_unlock(&t->lock);
}

/*
 * In the child: only the thread that forked runs, holding @t->lock (taken
 * in hf_table_fork_prepare()).
 */
void hf_table_fork_child(struct hf_table *t)
{
	for (uint32_t i = 0; i < t->nslots; i++)
		if (t->slots[i].entry)
			t->child(t->slots[i].entry);
	/* a new condition variable: waiters of the parent are not here */
	pthread_cond_init(&t->idle, NULL);
	pthread_mutex_unlock(&t->lock);
}
