// Text given to mutations is stored as it was sent: a string with a lone surrogate (a \ud800 escape in
// the JSON or GraphQL text) has no UTF-8 form and would be stored as U+FFFD, so it is refused by path.
import { describe, expect, it } from 'vitest';
import { errorSelection, harness } from './helpers.js';

const RP = 'abcdef00-0000-4000-8000-000000000001';

describe('mutations refuse text that is not valid Unicode', () => {
  it('names the input path of each lone surrogate and stores nothing', async () => {
    const h = harness({ providers: [{ uuid: RP, name: 'cn1', parent: null }] });
    const { data } = await h.gql(`mutation($input: CreateResourceProviderInput!) { createResourceProvider(input: $input) { ${errorSelection('createResourceProvider')} } }`, {
      input: { name: 'rack-\ud800-1' },
    });
    expect(data.createResourceProvider).toMatchObject({
      __typename: 'InvalidInput',
      issues: [{ path: 'name', message: 'is not valid Unicode text: a lone surrogate (\\uD800, which has no UTF-8 form) at character 6' }],
    });
    const flavor = await h.gql(`mutation($input: CreateFlavorInput!) { createFlavor(input: $input) { ${errorSelection('createFlavor')} } }`, {
      input: { name: 'm1', vcpus: 1, memoryMb: 512, rootGb: 1, extraSpecs: [{ key: 'hw:cpu_policy', value: 'shared' }, { key: 'quota:x', value: 'a\udfff' }] },
    });
    expect(flavor.data.createFlavor.issues).toEqual([{ path: 'extraSpecs.1.value', message: 'is not valid Unicode text: a lone surrogate (\\uDFFF, which has no UTF-8 form) at character 2' }]);
    const config = await h.gql('mutation($i: ApplyProviderConfigInput!) { applyProviderConfig(input: $i) { __typename ... on InvalidInput { issues { path } } } }', {
      i: { documents: [{ name: 'a\ud800.yaml', content: "meta:\n  schema_version: '1.0'\n" }] },
    });
    expect(config.data.applyProviderConfig).toEqual({ __typename: 'InvalidInput', issues: [{ path: 'documents.0.name' }] });
    expect(h.db.sqlite.prepare('SELECT name FROM resource_providers').all()).toEqual([{ name: 'cn1' }]);
    expect(h.db.sqlite.prepare('SELECT count(*) AS n FROM flavors').get()).toEqual({ n: 0 });
    // A character outside the BMP is a pair of surrogates: valid, and taken.
    const { data: taken } = await h.gql(`mutation($input: CreateResourceProviderInput!) { createResourceProvider(input: $input) { __typename ... on ResourceProviderPayload { provider { name } } } }`, {
      input: { name: 'rack-\ud83d\ude80' },
    });
    expect(taken.createResourceProvider).toEqual({ __typename: 'ResourceProviderPayload', provider: { name: 'rack-🚀' } });
  });
});
