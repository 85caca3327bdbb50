/*
 * send.h — a message from one process's heap to another's, as each era does it
 * (erts R10B: erl_message.c send_message; OTP 21+: erts_send_message with
 * erts_alloc_message_heap_state / erts_try_alloc_message_on_heap and copy_struct_litopt).
 *
 * The sender's policy (policy.send_path) chooses the path. Both size the message first
 * (size_object) and copy it with copy_struct into a block of exactly that size; they differ
 * in where the block is:
 *   DIRECT (R10B, R13B01 non-SMP): straight onto the receiver's heap. When the receiver has
 *     no room (stop - htop <= size) the sender first runs a GC of the receiver with the
 *     message size as `need`: the sender pays for the receiver's collection.
 *   HEAP_OR_FRAG (SMP: R13B01's beam.smp, OTP 21+): onto the receiver's heap only when the
 *     receiver is idle (the sender can lock it and its heap is not in use) and
 *     HEAP_LIMIT - htop > size (R13B01 global.h erts_alloc_message_heap, HEAP_LIMIT being
 *     stop; OTP 25 erts_alloc_message_heap_state, HEAP_LIMIT keeping S_REDZONE,
 *     policy.redzone, free); otherwise into a new heap fragment attached to the message.
 * With policy.send_litopt (OTP 20+) the sender's literal subterms are neither sized nor copied
 * (size_object_litopt / copy_struct_litopt).
 * size_object's walk keeps its pending subterms on a stack that a large one grows into
 * temp_alloc (alloc/estack.h tc_estack_size_object), a carrier from the segment cache the heaps
 * use. With policy.send_reds (OTP 25) the sender is charged TC_SEND_REDS, and msize / 64
 * reductions (at most CONTEXT_REDS) when the message is over 64 words (erts_send_message,
 * ERTS_MSG_COPY_WORDS_PER_REDUCTION); R10B's send_message charged nothing, and R13B01's
 * do_send charges 4 per message queued at the receiver (erts_use_sender_punish), which the
 * model leaves out.
 * Receiving is tc_proc_receive: R10B unlinks only; modern makes a message fragment young
 * data of the receiver (mbuf_sz grows), copying nothing.
 *
 * Where this differs from erts: a send to self is copied like any other (the VM skips the
 * copy); there is no signal queue, no seq-trace token and no message-struct free list; only
 * the sender's first literal area is consulted for the modern literal skip.
 */
#ifndef TC_COPY_SEND_H
#define TC_COPY_SEND_H

#include "../copy/stats.h"
#include "proc.h"

/* erl_send (bif.c) charges every successful local send 4 reductions (ERTS_VBUMP_REDS) on top of
 * the light BIF's own, and when that leaves none it yields after sending
 * (ERTS_BIF_PREP_YIELD_RETURN): the sender runs again, returning the message, only at its next
 * schedule-in. With policy.send_reds only; R10B's send_message charged nothing. */
#define TC_SEND_REDS 4

TC_BEGIN_DECLS

/*
 * Copies `msg` (a term of `from`) to `to` and queues it, by from's send path. `to_busy`
 * says the receiver is running or locked (only the modern path looks at it). The receiver's GC, when DIRECT
 * needs one, has the receiver's live x registers, stack and queued messages as roots.
 * TC_ENOMEM leaves nothing queued and the receiver valid (a GC already done stays done).
 * Adds sizes, words written, passes, fragments and GCs to *stats when it is not NULL.
 */
tc_result tc_send(tc_proc *from, tc_proc *to, tc_term msg, bool to_busy, tc_copy_stats *stats) TC_MUST_CHECK;

/* `!` as a process runs it: tc_send, then, when the sender's policy says so
 * (gc_after_send), the GC-after-BIF safe point with *msg the only live register, so the
 * sender may collect right after it sends (*msg then points at the moved message). */
tc_result tc_send_maybe_gc(tc_proc *from, tc_proc *to, tc_term *msg, bool to_busy, tc_copy_stats *stats) TC_MUST_CHECK;

/* Copies `t` (of `words` words, as size_object counts it) onto p's heap at htop, as spawn
 * copies its arguments: the caller has made room first (TestHeap). TC_EBADARG when the
 * words do not fit. */
tc_result tc_proc_copy_in(tc_proc *p, tc_term t, uint64_t words, tc_term *out) TC_MUST_CHECK;

TC_END_DECLS

#endif
