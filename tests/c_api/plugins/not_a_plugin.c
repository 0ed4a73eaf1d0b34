/* A shared library that is not a ge plugin: it exports neither entry point. */
__attribute__((visibility("default"))) int not_a_plugin_answer(void) { return 42; }
