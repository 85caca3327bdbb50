/*
 * gcnif — a tracer module (erl_tracer behaviour) that records garbage_collection and
 * 'receive' events in memory, for gctrace.erl --tester --nif. erts calls a tracer module's
 * enabled/3 and trace/5 NIFs synchronously in the traced process's own context (erl_trace.c
 * is_tracer_enabled, send_to_tracer_nif_raw), so unlike a tracer process nothing is sent,
 * no process is made runnable and no scheduler's run queue changes: the tester's scheduling
 * (which task is queued when its long GC goes dirty, heaps/sched.h) stays the untraced run's.
 * Each event is kept as the tuple the tracer process of gctrace.erl would have built from
 * its message: {Pid, recv, Class, Us} for a receive (Class: marked, get, stop, reply, other,
 * as gctrace.erl's classify/1; the message itself, a reply of Data, is not copied) and
 * {Pid, Tag, Info, Us} for a GC event (Info: the trace's list of heap sizes), Us the
 * monotonic clock in microseconds. take/0 hands them over, oldest first, and forgets them.
 *
 * Models no erts mechanism: an instrument.
 */
#include <erl_nif.h>
#include <string.h>

static ErlNifMutex *lock;
static ErlNifEnv *store;  /* holds the events, newest first, as one list */
static ERL_NIF_TERM events;
static ERL_NIF_TERM a_trace, a_discard, a_receive, a_recv, a_marked, a_get, a_stop, a_reply, a_other;

static int atom_is(ErlNifEnv *env, ERL_NIF_TERM t, const char *name)
{
    char buf[32];
    return enif_get_atom(env, t, buf, sizeof buf, ERL_NIF_LATIN1) > 0 && strcmp(buf, name) == 0;
}

static int is_gc_tag(ErlNifEnv *env, ERL_NIF_TERM tag)
{
    return atom_is(env, tag, "gc_minor_start") || atom_is(env, tag, "gc_minor_end") ||
           atom_is(env, tag, "gc_major_start") || atom_is(env, tag, "gc_major_end");
}

static int load(ErlNifEnv *env, void **priv, ERL_NIF_TERM info)
{
    (void)priv;
    (void)info;
    lock = enif_mutex_create("gcnif");
    store = enif_alloc_env();
    if (!lock || !store)
        return 1;
    events = enif_make_list(store, 0);
    a_trace = enif_make_atom(env, "trace");
    a_discard = enif_make_atom(env, "discard");
    a_receive = enif_make_atom(env, "receive");
    a_recv = enif_make_atom(env, "recv");
    a_marked = enif_make_atom(env, "marked");
    a_get = enif_make_atom(env, "get");
    a_stop = enif_make_atom(env, "stop");
    a_reply = enif_make_atom(env, "reply");
    a_other = enif_make_atom(env, "other");
    return 0;
}

/* enabled(TraceTag, TracerState, Tracee): every GC and receive event, and trace_status
 * (the tracer is alive); nothing else. */
static ERL_NIF_TERM enabled(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    if (atom_is(env, argv[0], "trace_status") || is_gc_tag(env, argv[0]) ||
        enif_is_identical(argv[0], a_receive))
        return a_trace;
    return a_discard;
}

/* The class of a received message, as gctrace.erl's classify/1. */
static ERL_NIF_TERM classify(ErlNifEnv *env, ERL_NIF_TERM msg)
{
    const ERL_NIF_TERM *el;
    int arity;
    if (enif_is_identical(msg, a_stop))
        return a_stop;
    if (!enif_get_tuple(env, msg, &arity, &el) || arity != 2)
        return a_other;
    if (enif_is_identical(el[1], a_marked))
        return a_marked;
    if (enif_is_identical(el[1], a_get))
        return a_get;
    return a_reply;
}

/* trace(TraceTag, TracerState, Tracee, TraceTerm, Opts) */
static ERL_NIF_TERM trace(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    ERL_NIF_TERM tag = argv[0], what;
    if (enif_is_identical(tag, a_receive)) {
        tag = a_recv;
        what = classify(env, argv[3]);
    } else if (is_gc_tag(env, tag)) {
        what = argv[3];
    } else {
        return a_discard;
    }
    ErlNifSInt64 us = enif_monotonic_time(ERL_NIF_USEC);
    enif_mutex_lock(lock);
    ERL_NIF_TERM ev = enif_make_tuple4(store, enif_make_copy(store, argv[2]), enif_make_copy(store, tag),
                                       enif_make_copy(store, what), enif_make_int64(store, us));
    events = enif_make_list_cell(store, ev, events);
    enif_mutex_unlock(lock);
    return a_trace;
}

/* take(): the events recorded so far, oldest first; the store starts again empty. */
static ERL_NIF_TERM take(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    (void)argv;
    ERL_NIF_TERM out;
    enif_mutex_lock(lock);
    ERL_NIF_TERM copy = enif_make_copy(env, events);
    enif_clear_env(store);
    events = enif_make_list(store, 0);
    enif_mutex_unlock(lock);
    if (!enif_make_reverse_list(env, copy, &out))
        return enif_make_badarg(env);
    return out;
}

static ErlNifFunc funcs[] = {
    {"enabled", 3, enabled, 0},
    {"trace", 5, trace, 0},
    {"take", 0, take, 0},
};

ERL_NIF_INIT(gcnif, funcs, load, NULL, NULL, NULL)
