/* consumer.c -- a program that only knows the installed header. */
#include <kvbudget.h>

#include <stdio.h>

int main(void)
{
    kvb_model m;
    kvb_error e = KVB_ERROR_INIT;
    if (kvb_version_number() != KVB_VERSION_NUMBER)
        return 1;
    if (KVB_MODEL_INIT(&m) || kvb_preset_model_find("Llama-3.1-8B", &m, &e))
        return 2;
    uint64_t total = 0;
    if (kvb_model_param_count(&m, &total, NULL, &e) || total != 8030261248ull)
        return 3;
    printf("consumer: %s %s has %llu parameters\n", kvb_version_string(),
           m.name, (unsigned long long)total);
    return 0;
}
