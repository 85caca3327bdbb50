/*
 * send_term.c — two modelled processes on one memory source: build a list on the sender's
 * heap, send it to the receiver as OTP 25 does, receive it, and print what the send cost.
 *
 *   cc send_term.c $(pkg-config --cflags --libs termcopy) -o send_term
 *   ./send_term
 */
#include <stdio.h>

#include <termcopy/termcopy.h>

#define N 1000

int main(void)
{
    tc_policy pol = tc_policy_native(); /* heap sizes, GC rules and carriers of OTP 25 */
    tc_mseg *mem = tc_mseg_new(&pol.mem); /* the carriers both heaps come from */
    tc_proc *sender = NULL, *receiver = NULL;
    tc_result r = mem ? tc_proc_new(mem, &pol, &sender) : TC_ENOMEM;
    if (r == TC_OK)
        r = tc_proc_new(mem, &pol, &receiver);

    /* lists:seq(1, N), built straight onto the sender's heap. */
    tc_term elems[N], msg = TC_NON_VALUE, got;
    for (int i = 0; i < N; i++)
        elems[i] = tc_make_small(i + 1);
    if (r == TC_OK && (msg = tc_term_list(tc_proc_alloc(sender), elems, N, TC_NIL)) == TC_NON_VALUE)
        r = TC_ENOMEM;

    /* Sizes the message, copies it onto the receiver's heap or into a fragment, queues it. */
    tc_copy_stats st = {0};
    if (r == TC_OK)
        r = tc_send(sender, receiver, msg, false, &st);
    bool received = r == TC_OK && tc_proc_receive(receiver, &got);
    if (received) {
        size_t len = 0;
        for (tc_term c = got; tc_is_list(c); c = tc_cdr(c))
            len++;
        printf("received a list of %zu elements\nwords copied: %llu\ngcs: %llu\n", len,
               (unsigned long long)st.words_written, (unsigned long long)st.gcs);
    } else {
        fprintf(stderr, "send_term: %s\n", r == TC_OK ? "nothing received" : tc_result_name(r));
    }
    tc_proc_free(sender);
    tc_proc_free(receiver);
    tc_mseg_free(mem);
    return received ? 0 : 1;
}
