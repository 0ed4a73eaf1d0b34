"""Execution providers as onnxruntime names them: ge runs models on the CPU
(CPUExecutionProvider); the list a script passes to InferenceSession is
checked, so that a script asking for another provider learns at once that ge
does not run it."""

CPU = "CPUExecutionProvider"
AVAILABLE = (CPU,)


def get_available_providers():
    """The providers ge offers, as onnxruntime.get_available_providers() lists them."""
    return list(AVAILABLE)


def check_providers(providers, provider_options):
    """Accepts InferenceSession's `providers` (names, or (name, options) pairs
    as onnxruntime takes them) and `provider_options` (one dict per provider).
    Raises ValueError for a provider ge does not have and for provider options,
    which the CPU provider has none of (ge options go in `options`)."""
    providers = list(providers or [])
    if provider_options is not None and len(provider_options) != len(providers):
        raise ValueError(f"ge: {len(provider_options)} provider_options for {len(providers)} providers; "
                         f"give one dict per provider")
    options = list(provider_options or [{}] * len(providers))
    for i, provider in enumerate(providers):
        if isinstance(provider, (tuple, list)) and len(provider) == 2:
            provider, options[i] = provider
        if provider not in AVAILABLE:
            raise ValueError(f"ge: unknown execution provider {provider!r}; ge has {', '.join(AVAILABLE)} "
                             f"(ge options such as ge.exec.intraOpThreads go in options={{...}})")
        if options[i]:
            raise ValueError(f"ge: {provider} takes no provider options in ge, got {options[i]!r}; "
                             f"give ge options in options={{...}} (docs/options.md)")
