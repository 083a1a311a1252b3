/**
 * The developer portal's built site as the stack deploys it: built during synthesis by
 * portal/build.ts, so that the cloud assembly (`cdk.out`, the deploy workflow's synth artifact)
 * holds the very bytes both stages upload.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { type ISource, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { REPOSITORY_ROOT } from './repository.ts';

/** The portal's build script: `portal/build.ts <directory>` writes the site there. */
const PORTAL_BUILD = join(REPOSITORY_ROOT, 'portal/build.ts');

/**
 * The built site (`index.html` and its hashed `assets/`), as a source of a `BucketDeployment`.
 * CDK's local bundling runs the build in a child process (it waits for a synchronous call, and
 * esbuild's build is asynchronous); the asset is named by what the build wrote, so a change of
 * the portal's sources or of a library it bundles makes a new one. Like the functions' bundles,
 * it is built only for the stacks a command synthesizes (`aws:cdk:bundling-stacks`), and a
 * failed build fails the synthesis: nothing falls back to Docker.
 */
export function portalSiteSource(): ISource {
  return Source.asset(join(REPOSITORY_ROOT, 'portal'), {
    assetHashType: AssetHashType.OUTPUT,
    exclude: ['dist', 'node_modules'],
    bundling: {
      // Required by the type; never pulled, since the local build either succeeds or throws.
      image: DockerImage.fromRegistry('scratch'),
      local: {
        tryBundle(outputDir) {
          const build = spawnSync(process.execPath, ['--import', 'tsx', PORTAL_BUILD, outputDir], {
            cwd: REPOSITORY_ROOT,
            encoding: 'utf8',
          });
          if (build.status !== 0) {
            throw new Error(`The portal's build failed: ${build.stderr || build.error?.message}`);
          }
          return true;
        },
      },
    },
  });
}
