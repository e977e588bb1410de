// The Task view, a lazy part. In tests and the dev server `chunk()` returns the module at once; the production build
// replaces this file with a call to the chunk loader the main bundle carries (renderer/classic-chunks.ts).
import * as part from '../../views/TaskView.tsx';

export const chunk = (): typeof part | Promise<typeof part> => part;
