import { LabIcon } from '@jupyterlab/ui-components';

import docsSvg from '../style/icons/docs.svg';

/** The panel's tab: an open book with a spark, in the theme's icon colour. */
export const docsIcon = new LabIcon({ name: 'biopb-kernel-docs:docs', svgstr: docsSvg });
