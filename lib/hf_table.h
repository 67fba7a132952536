/* SPDX-License-Identifier: MIT */
/*
 * hf_table.h - a process-wide table of objects named by tokens, never by
 * pointers (the cards of handle.c, the streams of stream.c).
 *
 * A token is
 *	generation << HF_TABLE_SLOT_BITS | (slot + 1)
 * with the generation from the table's own counter, so a token of an entry
 * that left the table (its slot free or reused) never matches again: a
 * closed, made-up or foreign token finds nothing, never another object.
 *
 * The table's lock guards its slots and whatever the user keeps under it
 * (the references of the calls in flight); its condition variable is the
 * user's to wait on under that lock (hf_table_wait(), hf_table_wake()).
 * The references stay with the user: a lookup that takes one is
 * hf_table_find() and the user's count, both under the lock.
 *
 * fork(): the table's lock is taken around fork() (pthread_atfork(), on the
 * first hf_table_lock()), so the child never inherits it held; in the child
 * @child runs on every entry, under the lock, and the condition variable is
 * a new one (waiters of the parent are not there).
 */
#ifndef HF_TABLE_H
#define HF_TABLE_H

#include <pthread.h>
#include <stdint.h>

#define HF_TABLE_SLOT_BITS	16
#define HF_TABLE_MAX_SLOTS	((1u << HF_TABLE_SLOT_BITS) - 1)

struct hf_table_slot;

/**
 * struct hf_table - a table; define one with HF_TABLE_DEFINE().
 * @lock: guards the slots, and what the user keeps under it
 * @idle: the user's condition variable, under @lock
 * @once: registers the fork handlers on the first hf_table_lock()
 * @init: that registration (made by HF_TABLE_DEFINE())
 * @child: in a fork() child, called on every entry, @lock held; it takes
 *	no other lock (another thread of the parent may have held any)
 * @slots: the entries and their generations
 * @nslots: slots allocated
 * @next_gen: generation of the latest entry
 */
struct hf_table {
	pthread_mutex_t lock;
	pthread_cond_t idle;
	pthread_once_t once;
	void (*init)(void);
	void (*child)(void *entry);
	struct hf_table_slot *slots;
	uint32_t nslots;
	uintptr_t next_gen;
};

void hf_table_lock(struct hf_table *t);
void hf_table_unlock(struct hf_table *t);
void hf_table_wait(struct hf_table *t);
void hf_table_wake(struct hf_table *t);
int hf_table_insert(struct hf_table *t, void *entry, uintptr_t *token);
void *hf_table_find(struct hf_table *t, uintptr_t token);
void *hf_table_remove(struct hf_table *t, uintptr_t token);
void hf_table_fork_prepare(struct hf_table *t);
void hf_table_fork_parent(struct hf_table *t);
void hf_table_fork_child(struct hf_table *t);

/*
 * HF_TABLE_DEFINE(name, child) - a static table @name whose fork() child
 * runs @child(entry) on every entry, with the fork handlers that
 * pthread_atfork() takes (functions of no argument, so one set a table).
 */
#define HF_TABLE_DEFINE(name, child_fn)					\
	static void name##_init(void);					\
	static struct hf_table name = {					\
		.lock = PTHREAD_MUTEX_INITIALIZER,			\
		.idle = PTHREAD_COND_INITIALIZER,			\
		.once = PTHREAD_ONCE_INIT,				\
		.init = name##_init,					\
		.child = (child_fn),					\
	};								\
	static void name##_prepare(void) { hf_table_fork_prepare(&name); } \
	static void name##_parent(void) { hf_table_fork_parent(&name); } \
	static void name##_child(void) { hf_table_fork_child(&name); } \
	static void name##_init(void)					\
	{								\
		pthread_atfork(name##_prepare, name##_parent,		\
			       name##_child);				\
	}

#endif /* HF_TABLE_H */
