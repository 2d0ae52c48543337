/*
 * Coccinelle 1.1 cannot parse the kernel's scoped lock guards: the macro
 * expands to a for loop with a label, and spatch gives up on the whole
 * function ("scoped_guard(...) {" in 7.3's kernel/irq/manage.c left 30% of
 * the file unparsed).  Tell it they are an if statement, which is all a
 * semantic patch needs to know about their control flow.  ci/cocci.sh
 * passes this with --macro-file and prints the parse rate of every file.
 */
#define scoped_guard(_name, args...) if (1)
#define scoped_cond_guard(_name, _fail, args...) if (1)
#define scoped_irqdesc_get_and_lock(_irq, _check) if (1)
#define scoped_irqdesc_get_and_buslock(_irq, _check) if (1)
