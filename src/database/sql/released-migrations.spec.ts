import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Released migrations never change: a database that ran 001-046 under
 * release 0.3.0 never runs them again, so an edit would give new installs a
 * schema that upgraded ones lack. Each file's sha256 is pinned to its bytes at
 * release 0.3.0 (commit 070716f); a change of behaviour belongs in a new
 * numbered migration.
 */

/** Highest migration number shipped in a release (0.3.0). */
const LAST_RELEASED = 46;

/** sha256 (hex) of every released migration file, as released in 0.3.0. */
const RELEASED: Record<string, string> = {
  '001-tables.down.sql': 'bfe71be5e4e3691a8d6aba8cdb9041fda17d880b3cfdfb12b7c17cef989bdd62',
  '001-tables.up.sql': '5a24934bfb1665ed06807cd32ea0f4edad1f9fbda41f55212731801c53463de7',
  '002-wake-up.down.sql': '2e44d63dfe3291def24c6b0b6e6e4271c8339013cc591102991230c859696cf9',
  '002-wake-up.up.sql': 'dc31a91f7a54868dd55236a0fda1d0d34224b7208a79a81642a00c14da67e87f',
  '003-leases.down.sql': 'a942b92beee13a52122d1e257e9ec423b143f8c77c8f92c93eb1ad1d943bf200',
  '003-leases.up.sql': 'd855a53ab4f36a794a0992dbb0f843e4cc22a030a888969756bade9e3e4d9567',
  '004-group-order.down.sql': 'ecd64ae65934a64300c64b58facb73da3d5b2a558a558d59d3dbbc046dbeb0e6',
  '004-group-order.up.sql': '8bfceed2d210da425e44f7332fe34b24f78cd2b8c9b4820aa37dce28939b182e',
  '005-promotion.down.sql': '9ae6dcba67720b3e4e9f236280978ea6a2feb98b887818b7fb526d99c230c283',
  '005-promotion.up.sql': 'fc880a9dc104a3db95d22a81aad577f359d00ad015fdc63bbe718e1953341af2',
  '006-worker-claim.down.sql': '5fe54aac0a18435e0952c846a48b3571e39305490b62fa6626f2264fb91f0b53',
  '006-worker-claim.up.sql': '8e72098896095b3b596896094ca10a094f7a9467488dd726c7fca92c282ef1a5',
  '007-worker-finish.down.sql': '0d41ae150050b6b965b2d6def0e13a54704ef27aeb7f3bbbc647f766aee44740',
  '007-worker-finish.up.sql': '950e3849da6269797368242b48c15ea336098fe9177a9837ca8afd12764a1e15',
  '008-lost-attempts.down.sql': '3f5594300447e5edf1bc1084990387ad06a85eddb4558ca4b6c15e387e844d48',
  '008-lost-attempts.up.sql': '9b3d842080bace00f5a12c183960d776ff1ba5e8a2c3d4d5f94f937330bfc014',
  '009-admin-reads.down.sql': '576f736ad389e6dea4671d7537afa467fd615c9d6fecd7688cc77f903d8a431a',
  '009-admin-reads.up.sql': '637731a1655efc43c124576639e1ecd21e646c75c2d463a76798e9e106d3f700',
  '010-operator-sql.down.sql': 'da81c3f40a5af070f97f2f2ab027b5842608c4e1562eddf54b30f096cb986df5',
  '010-operator-sql.up.sql': '7b3043abd299ca7eabfdb13b0687541627d7552953c1be8b90cd7f90c420c720',
  '011-lost-attempts-in-parallel.down.sql': 'ff36fdd4ce88c6ef01b7908d0ea3eeebdb8000dc7856bc643932bb3c96095079',
  '011-lost-attempts-in-parallel.up.sql': 'e6b7363250873cfe7130710768cd9a7b23c1a43c9336933ee666dc02787a75ec',
  '012-unknown-leases.down.sql': '5f6325d612eb76a814be89fde73d214e551b13383b5cebe854eed7b3b62b15ca',
  '012-unknown-leases.up.sql': '2f8ed33aba855c1e85029dcc9a5cb414aba05ae286aa8d38e240cb59c2104a33',
  '013-cancel-notify.down.sql': '498809b3e67454c78cf208fb13b2b364b6b2efa6176551955d24a1bcbc8a793f',
  '013-cancel-notify.up.sql': '75ffd1e758da258ed9ca50a067f60271c3b36112889b9cbfc0b3ae51f9aad8d5',
  '014-payload-limit.down.sql': 'f59aca1cf4ee4f32e5b8928b6a0edf390e3e34c9b0c8f0953986e9ffc0e623e1',
  '014-payload-limit.up.sql': '70b6f8ed0f76af69957cd52453965cae3c1f38ea3fe2210e7f98b16ceebf7602',
  '017-group-keys.down.sql': 'ea017e0cf6cbec2c5edef7507dad17aed92329b8aff9f63b4fe872c19cf201fb',
  '017-group-keys.up.sql': '8d2b2e3882bb35d7b03d2f665da412fb28d4f6e276ee4ac98c750aa79bb1b7fc',
  '020-pin-search-path.down.sql': 'bd0a90c8d072e0ee092a863af59a61bcb601bac611ac21db537cdad1c7d0439f',
  '020-pin-search-path.up.sql': '709a9748f8dc84b7302cdbd6430e9b0868a83915d0bfefae36309db4765c4732',
  '021-suspect-notify.down.sql': 'c3dc947ddc9bd1b00991c2f66cc624372452b394876b6562bd78aded063afaa9',
  '021-suspect-notify.up.sql': '4481eb52219ad32ce9f4614889cb8c9626a16f65a27c2346763322bcaeaa0e5f',
  '022-group-key-guard.down.sql': '88072ed5737c848568768fc981483fa205494ab5e8bbfcd3eeef6f6ad11de19d',
  '022-group-key-guard.up.sql': '8fe9cb932b4b6d9deb8a718d37ee79e78a0298025ef9e58aea2cc6c50cccd1e6',
  '023-claim-frontier.down.sql': '60c5ee10f32be02a9659e9f859f0667eeba0d00a1351fd7054ab33c042715497',
  '023-claim-frontier.up.sql': '91aa4e335d5b611b0f92e7b2bbc232bd20c8078072f2a489ffc008448be45db9',
  '030-flow-control.down.sql': '4edd5f483dd5a06ffdfa2fc2a186e998c9f768893a562ec25ce49cac16c2f5c0',
  '030-flow-control.up.sql': 'd0238ff74ee038896ac7a765817f8d546563dba3e2756cbe5a0223d83c80023a',
  '031-rate-limits.down.sql': 'ecfd4979e0d4264cfbc0872dff2095e1c39efbea11202f29e4a45c3faee609ae',
  '031-rate-limits.up.sql': 'ee9efd9c0645ef4bdc12735852fe556cdf300359163bf9782b0d93d2febe6003',
  '035-group-depth-limits.down.sql': 'a94413fe04c15c0a4d5e052d9357e3f395a58a4824501e7dd80d68b97745b223',
  '035-group-depth-limits.up.sql': '3fef69d965614e900e05171768560bbce083f28e99d084003f09f465133c4061',
  '036-recurring-actions.down.sql': '7c05252f055332537e7e2985dafa468da3c81920d94b841769af288f8fdbf963',
  '036-recurring-actions.up.sql': 'b45ed1cf114238b5be1102f00e60916ed9fba9d70e4925fcbb7db86f9c13b51c',
  '037-bulk-operations.down.sql': '135f3e64774353d225c8c983a0a20db27153806fe8bf092d3d4ad82dfb9626b0',
  '037-bulk-operations.up.sql': '665e9cb786094db628b26e341cdd0180caf100081126a682df0ced9baa44014e',
  '038-hand-off-fast-path.down.sql': 'd0cbd8648bd39bc03ef65c22fa61185479b2d0eec7c6d3f9087d407eee4c49f6',
  '038-hand-off-fast-path.up.sql': 'c1dbf6741d6d3d7ef2aef84b135c4d056850850d644f5c3d869d7edce4e2e316',
  '039-group-head-records.down.sql': '2dc108662d01c86dea2e7995fcff35dfd6efcee9dcabeca0be166e7a157a894b',
  '039-group-head-records.up.sql': '44a627c594eeb37033290abf8541e34453244cb9601d0f278df65bc403eca375',
  '040-generic-idle-probes.down.sql': '035bd08785acb727a17745c294aa13c0bffe711f037f95e0a1f9516fe017e095',
  '040-generic-idle-probes.up.sql': '2e55690eed526e04f54422a2ba0d2ca9821ff3298beddef6bba3d301bb0c5695',
  '041-claim-without-sort.down.sql': '60f4e1ef108830dd4969f497270c132b9f70bcde2bcb479a106d1f8d85062e49',
  '041-claim-without-sort.up.sql': 'fef9b4ca76a87997bd3c056c717c923d2f1411b211d049d64b3f5e880692b96d',
  '042-ordered-chunks.down.sql': '0675bd21d5360caa14a213fe52171fa3db02a1714bb981d5433817c325ae88ad',
  '042-ordered-chunks.up.sql': '7d0d931c265b8027d0f68a688a8633e4b5a993b10c4db5bb49232c265d7bffc2',
  '043-chunk-losses-in-order.down.sql': '373a2432525926663be0f2d00d96598998c1f2646b1896aeca8d9a6368ba6a67',
  '043-chunk-losses-in-order.up.sql': '80e14e1a57560b082b24adbd8a7c2ddc240750c8c4abf3b7e1a3d9f39c4c7618',
  '044-insert-own-records.down.sql': 'f385384fa5ea2d5cdf4d11656929ca85f4da2987c67a1af3c3fdb920b6686c76',
  '044-insert-own-records.up.sql': '67ba352c380d53619dda787fb502c3fd82befa7d31e9291f2007eb1bebe00d64',
  '045-chunk-members-linear.down.sql': 'e46a04a4158114561385d237daac7479c27c8a44aefd146fd7d5bb1c22c7ca51',
  '045-chunk-members-linear.up.sql': '023833aef5d4e1aba9b750c022e0dbe730242b806a10cf49fed5306561574961',
  '046-finish-without-guard.down.sql': '77e99edc262e7c4fea932e5bdaf9fd61f8a329ce8f83228117821f2c126aa261',
  '046-finish-without-guard.up.sql': 'ef0bbe02769e927b37ddc8ccccd74c0eab6044dbb34c3fa5aec69bdbf7379506',
};

const folder = __dirname;

/** Migration files numbered 001..LAST_RELEASED found in the folder today. */
function releasedFilesOnDisk(): string[] {
  return readdirSync(folder)
    .filter((name) => /^\d{3}-.*\.sql$/.test(name) && Number(name.slice(0, 3)) <= LAST_RELEASED)
    .sort();
}

describe('released migrations (001-046)', () => {
  it('are exactly the files released in 0.3.0: none added, none removed', () => {
    expect(releasedFilesOnDisk()).toEqual(Object.keys(RELEASED).sort());
  });

  it('keep the bytes they were released with', () => {
    const changed = Object.entries(RELEASED)
      .filter(([name, sha256]) => {
        const actual = createHash('sha256')
          .update(readFileSync(join(folder, name)))
          .digest('hex');
        return actual !== sha256;
      })
      .map(([name]) => name);
    expect(changed).toEqual([]);
  });
});
